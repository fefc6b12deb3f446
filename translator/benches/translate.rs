//! Placeholder replaced below once translation lands.
fn main() {}
