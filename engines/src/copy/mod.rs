//! Copy engines (placeholder while the layout module lands).
