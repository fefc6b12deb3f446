//! Method names and offsets of the 3D class, from `methods_c797.txt` (facts from open-gpu-doc clc797.h:
//! byte offset, array stride or 0, name), for traces and for the list of ignored methods.

/// Class id of AMPERE_A.
pub const AMPERE_A: u32 = 0xC697;
/// Class id of AMPERE_B.
pub const AMPERE_B: u32 = 0xC797;

const TABLE: &str = include_str!("methods_c797.txt");

/// One table row: a single method, or an array starting at `base` with elements `stride` bytes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodEntry {
    pub base: u32,
    pub stride: u32,
    pub name: &'static str,
}

/// The table's rows in offset order; a malformed row is skipped by `rows` and caught by the tests.
pub fn entries() -> Vec<MethodEntry> {
    TABLE.lines().filter(|l| !l.starts_with('#')).filter_map(row).collect()
}

fn row(line: &'static str) -> Option<MethodEntry> {
    let mut words = line.split_whitespace();
    let base = u32::from_str_radix(words.next()?, 16).ok()?;
    let stride = words.next()?.parse().ok()?;
    let name = words.next()?;
    Some(MethodEntry { base, stride, name })
}

/// The name of the method at byte offset `method` (`SET_COLOR_TARGET_FORMAT(2)` for an array element),
/// or `None` where the class defines none. An array element belongs to the last row at or below it whose
/// stride divides the distance and which the next row does not start before.
pub fn method_name(method: u32) -> Option<String> {
    let rows = entries();
    let at = rows.partition_point(|e| e.base <= method);
    // Arrays interleave (SET_COLOR_TARGET_A(j), _B(j) ... share a stride), so search back from the row.
    for e in rows[..at].iter().rev() {
        if e.base == method {
            return Some(if e.stride == 0 { e.name.to_string() } else { format!("{}(0)", e.name) });
        }
        if e.stride != 0 && (method - e.base) % e.stride == 0 {
            let index = (method - e.base) / e.stride;
            // Arrays of the class have at most 64 elements (viewports 16, targets 8, streams 32).
            if index < 64 {
                return Some(format!("{}({index})", e.name));
            }
        }
        if method - e.base > 0x1000 {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses() {
        let rows = TABLE.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(entries().len(), rows);
    }

    #[test]
    fn names_from_the_class_header() {
        assert_eq!(method_name(0x1614).as_deref(), Some("END"));
        assert_eq!(method_name(0x1618).as_deref(), Some("BEGIN"));
        assert_eq!(method_name(0x19d0).as_deref(), Some("CLEAR_SURFACE"));
        assert_eq!(method_name(0x0810 + 2 * 64).as_deref(), Some("SET_COLOR_TARGET_FORMAT(2)"));
        assert_eq!(method_name(0x2014 + 5 * 64).as_deref(), Some("SET_PIPELINE_PROGRAM_ADDRESS_A(5)"));
        assert_eq!(method_name(0x2390 + 4 * 3).as_deref(), Some("LOAD_CONSTANT_BUFFER(3)"));
        assert_eq!(method_name(0x1c00 + 16).as_deref(), Some("SET_VERTEX_STREAM_A_FORMAT(1)"));
    }
}
