//! The committed table parses, and parse → write → parse is the identity.

use sassport_isa::{parse_table, sm86, write_table};

#[test]
fn committed_table_parses() {
    let table = sm86().expect("isa/sm86.txt parses");
    assert_eq!(table.arch, "SM86");
    assert_eq!(table.nvdisasm, "13.5.37");
    assert!(!table.classes.is_empty());
}

#[test]
fn write_then_parse_is_identity() {
    let table = sm86().expect("isa/sm86.txt parses");
    let text = write_table(&table, &["round trip"]);
    let again = parse_table(&text).expect("written table parses");
    assert_eq!(table, again);
    // Writing is deterministic and a fixed point.
    assert_eq!(text, write_table(&again, &["round trip"]));
}

#[test]
fn syntax_errors_name_line_and_column() {
    let text = "arch SM86\nnvdisasm 13.5.37\n\nclass A_0x1 \"A\"\n  opcode 0x1\n  fixed 0xzz/0x1\n";
    let e = parse_table(text).unwrap_err();
    assert_eq!((e.line, e.column), (6, 11), "{e}");
    let e = parse_table("arch SM86\nnvdisasm 1\nclass A_0x1 \"A\"\n  bogus 1\n").unwrap_err();
    assert_eq!((e.line, e.column), (4, 3), "{e}");
}

#[test]
fn semantic_errors_name_the_line() {
    let text = "arch SM86\nnvdisasm 13.5.37\nclass A_0x1 \"A\"\n  opcode 0x1\n  fixed 0x00000000000000000000000000000fff/0x00000000000000000000000000000001\n  print \"{nope};\"\n";
    let e = parse_table(text).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    assert!(e.message.contains("nope"), "{e}");
}
