//! AMPERE_CHANNEL_GPFIFO_A (0xC56F) host methods. Every method offset and field value below is typed
//! in from clc56f.h as recorded in `shared/notes/command-engines.md` §2, not taken from the library.

mod common;

use common::*;
use sassport_engines::channel::{methods, ChannelError, ChannelStop, EngineError, WaitReason};
use sassport_engines::semaphore::{
    check_reduction, release_writes, PayloadSize, ReductionFormat, ReductionOp, ReleaseShape,
};

// clc56f.h byte offsets (note §2.1).
const SET_OBJECT: u32 = 0x000;
const ILLEGAL: u32 = 0x004;
const NOP: u32 = 0x008;
const SEMAPHOREA: u32 = 0x010;
const SEMAPHOREB: u32 = 0x014;
const SEMAPHOREC: u32 = 0x018;
const SEMAPHORED: u32 = 0x01C;
const NON_STALL_INTERRUPT: u32 = 0x020;
const MEM_OP_C: u32 = 0x030;
const MEM_OP_D: u32 = 0x034;
const SET_REFERENCE: u32 = 0x050;
const SEM_ADDR_LO: u32 = 0x05C;
const SEM_ADDR_HI: u32 = 0x060;
const SEM_PAYLOAD_LO: u32 = 0x064;
const SEM_PAYLOAD_HI: u32 = 0x068;
const SEM_EXECUTE: u32 = 0x06C;
const WFI: u32 = 0x078;
const YIELD: u32 = 0x080;

// SEM_EXECUTE fields (note §2.3).
const OP_ACQUIRE: u32 = 0;
const OP_RELEASE: u32 = 1;
const OP_ACQ_STRICT_GEQ: u32 = 2;
const OP_ACQ_CIRC_GEQ: u32 = 3;
const OP_ACQ_AND: u32 = 4;
const OP_ACQ_NOR: u32 = 5;
const OP_REDUCTION: u32 = 6;
const PAYLOAD_64: u32 = 1 << 24;
const TIMESTAMP_EN: u32 = 1 << 25;
const UNSIGNED: u32 = 1 << 31;
fn reduction(r: u32) -> u32 {
    r << 27
}

fn sem_regs(va: u64, lo: u32, hi: u32) -> Vec<(u32, u32)> {
    vec![
        (SEM_ADDR_LO, va as u32),
        (SEM_ADDR_HI, (va >> 32) as u32),
        (SEM_PAYLOAD_LO, lo),
        (SEM_PAYLOAD_HI, hi),
    ]
}

fn sem_execute(rig: &mut Rig, va: u64, payload: u64, exec: u32) -> Result<(), String> {
    let mut m = sem_regs(va, payload as u32, (payload >> 32) as u32);
    m.push((SEM_EXECUTE, exec));
    rig.feed(&methods(&m))
        .map(|_| ())
        .map_err(|h| h.stop.to_string())
}

#[test]
fn method_offsets_match_the_class_header() {
    let table = [
        (SET_OBJECT, "SET_OBJECT"),
        (ILLEGAL, "ILLEGAL"),
        (NOP, "NOP"),
        (SEMAPHOREA, "SEMAPHOREA"),
        (SEMAPHOREB, "SEMAPHOREB"),
        (SEMAPHOREC, "SEMAPHOREC"),
        (SEMAPHORED, "SEMAPHORED"),
        (NON_STALL_INTERRUPT, "NON_STALL_INTERRUPT"),
        (0x024, "FB_FLUSH"),
        (0x028, "MEM_OP_A"),
        (0x02C, "MEM_OP_B"),
        (MEM_OP_C, "MEM_OP_C"),
        (MEM_OP_D, "MEM_OP_D"),
        (SET_REFERENCE, "SET_REFERENCE"),
        (SEM_ADDR_LO, "SEM_ADDR_LO"),
        (SEM_ADDR_HI, "SEM_ADDR_HI"),
        (SEM_PAYLOAD_LO, "SEM_PAYLOAD_LO"),
        (SEM_PAYLOAD_HI, "SEM_PAYLOAD_HI"),
        (SEM_EXECUTE, "SEM_EXECUTE"),
        (WFI, "WFI"),
        (YIELD, "YIELD"),
        (0x084, "CLEAR_FAULTED"),
    ];
    for (offset, name) in table {
        assert_eq!(methods::host_method_name(offset), Some(name), "{offset:#x}");
    }
    // 0x70/0x74 are Tegra X1 syncpoint methods on B06F-era hosts, not C56F methods.
    assert_eq!(methods::host_method_name(0x70), None);
    assert_eq!(methods::host_method_name(0x74), None);
}

#[test]
fn sem_addr_payload_execute_write_where_the_header_says() {
    // A 64-bit release of a distinct payload: if any offset were wrong the value or place would be.
    let mut rig = Rig::new();
    sem_execute(
        &mut rig,
        SEM + 0x40,
        0x0102_0304_0506_0708,
        OP_RELEASE | PAYLOAD_64,
    )
    .unwrap();
    assert_eq!(
        rig.bytes_at(SEM + 0x40, 8),
        0x0102_0304_0506_0708u64.to_le_bytes()
    );
    assert_eq!(rig.bytes_at(SEM + 0x48, 8), [0; 8]);
}

#[test]
fn nvgpu_syncpoint_increment_and_wait_sequences() {
    // The exact ten words gv11b_syncpt_add_incr_cmd / _add_wait_cmd emit (note §2.5).
    let lo = (SEM + 0x10) as u32;
    let hi = ((SEM + 0x10) >> 32) as u32 & 0xFF;
    let incr = [
        0x2001_0017,
        lo,
        0x2001_0018,
        hi,
        0x2001_0019,
        0,
        0x2001_001A,
        0,
        0x2001_001B,
        0x1 | 1 << 20,
    ];
    let wait = [
        0x2001_0017,
        lo,
        0x2001_0018,
        hi,
        0x2001_0019,
        5,
        0x2001_001A,
        0,
        0x2001_001B,
        0x3 | 1 << 12,
    ];
    let mut rig = Rig::new();
    rig.set(SEM + 0x10, &4u32.to_le_bytes());
    let halt = rig.feed(&wait).unwrap_err();
    assert!(matches!(
        halt.stop,
        ChannelStop::Wait {
            reason: WaitReason::Acquire {
                current: 4,
                payload: 5,
                ..
            },
            ..
        }
    ));
    rig.set(SEM + 0x10, &5u32.to_le_bytes());
    rig.resume().unwrap();
    // The increment sequence releases payload 0 (the syncpoint shim turns that into +1 in hardware).
    rig.feed(&incr).unwrap();
    assert_eq!(rig.bytes_at(SEM + 0x10, 4), [0; 4]);
}

#[test]
fn release_sizes_and_the_16_byte_layout() {
    let mut rig = Rig::new();
    rig.set(SEM, &[0xEE; 64]);
    // 4-byte.
    sem_execute(&mut rig, SEM, 0xAABB_CCDD_1122_3344, OP_RELEASE).unwrap();
    assert_eq!(
        rig.bytes_at(SEM, 8),
        [0x44, 0x33, 0x22, 0x11, 0xEE, 0xEE, 0xEE, 0xEE]
    );
    // 16-byte, 32-bit payload: payload, zero, timestamp.
    sem_execute(&mut rig, SEM + 0x10, 0x5566_7788, OP_RELEASE | TIMESTAMP_EN).unwrap();
    let b = rig.bytes_at(SEM + 0x10, 16);
    assert_eq!(&b[0..4], &0x5566_7788u32.to_le_bytes());
    assert_eq!(&b[4..8], &[0; 4]);
    assert_eq!(&b[8..16], &0x1111_2222_3333_0000u64.to_le_bytes());
    // 16-byte, 64-bit payload; the clock advanced by its step.
    sem_execute(
        &mut rig,
        SEM + 0x20,
        0x0102_0304_0506_0708,
        OP_RELEASE | TIMESTAMP_EN | PAYLOAD_64,
    )
    .unwrap();
    let b = rig.bytes_at(SEM + 0x20, 16);
    assert_eq!(&b[0..8], &0x0102_0304_0506_0708u64.to_le_bytes());
    assert_eq!(&b[8..16], &0x1111_2222_3333_0010u64.to_le_bytes());
    // Alignment: 64-bit needs 8, timestamps need 16.
    assert!(sem_execute(&mut rig, SEM + 4, 1, OP_RELEASE | PAYLOAD_64)
        .unwrap_err()
        .contains("8-byte aligned"));
    let mut rig = Rig::new();
    assert!(sem_execute(&mut rig, SEM + 8, 1, OP_RELEASE | TIMESTAMP_EN)
        .unwrap_err()
        .contains("16-byte aligned"));
}

#[test]
fn timestamp_is_written_before_the_payload() {
    for size in [PayloadSize::Bits32, PayloadSize::Bits64] {
        let w = release_writes(
            0x1000,
            7,
            ReleaseShape {
                size,
                timestamp: true,
            },
            99,
        );
        assert_eq!(w.len(), 2);
        assert_eq!(
            (w[0].va, &w[0].bytes[..w[0].len]),
            (0x1008, &99u64.to_le_bytes()[..])
        );
        assert_eq!(w[1].va, 0x1000);
        assert_eq!(&w[1].bytes[..w[1].len], &7u64.to_le_bytes()[..]);
    }
}

#[test]
fn a_release_that_cannot_complete_writes_nothing() {
    // The 16-byte release's last 8 bytes (the timestamp) fall off the mapped page.
    let mut rig = Rig::new();
    let va = SEM + 0xFF0 + 0x10 - 0x10; // last 16 bytes of the page: fine
    sem_execute(&mut rig, va, 1, OP_RELEASE | TIMESTAMP_EN).unwrap();
    let before = rig.bytes_at(SEM, 0x1000);
    let err = sem_execute(&mut rig, SEM + 0x1000, 1, OP_RELEASE | TIMESTAMP_EN).unwrap_err();
    assert!(err.contains("not mapped"), "{err}");
    assert_eq!(rig.bytes_at(SEM, 0x1000), before);
}

#[test]
fn legacy_semaphored_polarity() {
    // SEMAPHORED: OPERATION 4:0 (RELEASE = 2), RELEASE_WFI 20 (0 = EN), RELEASE_SIZE 24 (0 = 16BYTE).
    let legacy = |va: u64, payload: u32, d: u32| {
        methods(&[
            (SEMAPHOREA, (va >> 32) as u32),
            (SEMAPHOREB, va as u32),
            (SEMAPHOREC, payload),
            (SEMAPHORED, d),
        ])
    };
    let mut rig = Rig::new();
    rig.set(SEM, &[0xEE; 32]);
    // Default fields (all zero besides RELEASE): a 16-byte release with timestamp.
    rig.feed(&legacy(SEM, 0xCAFE, 2)).unwrap();
    let b = rig.bytes_at(SEM, 16);
    assert_eq!(&b[0..8], &[0xFE, 0xCA, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&b[8..16], &0x1111_2222_3333_0000u64.to_le_bytes());
    // RELEASE_SIZE_4BYTE = 1: only four bytes.
    rig.feed(&legacy(SEM + 0x10, 0xBEEF, 2 | 1 << 24)).unwrap();
    assert_eq!(
        rig.bytes_at(SEM + 0x10, 8),
        [0xEF, 0xBE, 0, 0, 0xEE, 0xEE, 0xEE, 0xEE]
    );
    // RELEASE_WFI: 0 waits for the engine; with the engine busy the release waits, with DIS (1) it
    // does not.
    rig.feed(&methods(&[(SET_OBJECT, 0xC6B5)])).unwrap();
    rig.feed(&[inc(0, 0x300, 1), 0]).unwrap(); // last engine = 0xC6B5
    rig.log.borrow_mut().busy = true;
    let halt = rig.feed(&legacy(SEM + 0x20, 1, 2 | 1 << 24)).unwrap_err();
    assert!(matches!(
        halt.stop,
        ChannelStop::Wait {
            reason: WaitReason::EngineBusy { class: 0xC6B5 },
            ..
        }
    ));
    rig.channel.decoder_mut().discard_held();
    rig.feed(&legacy(SEM + 0x20, 3, 2 | 1 << 24 | 1 << 20))
        .unwrap();
    assert_eq!(rig.bytes_at(SEM + 0x20, 4), [3, 0, 0, 0]);
    // SEM_EXECUTE has the opposite RELEASE_WFI polarity: 1 = EN waits.
    let err = sem_execute(&mut rig, SEM + 0x30, 1, OP_RELEASE | 1 << 20).unwrap_err();
    assert!(err.contains("busy"), "{err}");
}

#[test]
fn legacy_acquires() {
    let legacy = |payload: u32, d: u32| {
        methods(&[
            (SEMAPHOREA, (SEM >> 32) as u32),
            (SEMAPHOREB, SEM as u32),
            (SEMAPHOREC, payload),
            (SEMAPHORED, d),
        ])
    };
    for (value, payload, op, ok) in [
        (5u32, 5u32, 1u32, true), // ACQUIRE ==
        (4, 5, 1, false),
        (6, 5, 4, true),           // ACQ_GEQ
        (1, 0xFFFF_FFFF, 4, true), // wraps: 1 - 0xFFFFFFFF = 2
        (4, 5, 4, false),
        (0b0100, 0b0110, 8, true), // ACQ_AND
        (0b1001, 0b0110, 8, false),
    ] {
        let mut rig = Rig::new();
        rig.set(SEM, &value.to_le_bytes());
        let r = rig.feed(&legacy(payload, op | 1 << 24));
        assert_eq!(
            r.is_ok(),
            ok,
            "value {value:#x} payload {payload:#x} op {op}"
        );
    }
    // An OPERATION that is not one-hot is refused.
    let mut rig = Rig::new();
    assert!(rig.feed(&legacy(0, 3)).is_err());
}

#[test]
fn sem_execute_acquire_conditions() {
    let cases: &[(u64, u64, u32, bool)] = &[
        (7, 7, OP_ACQUIRE, true),
        (7, 8, OP_ACQUIRE, false),
        (0x8000_0000, 1, OP_ACQ_STRICT_GEQ, true),
        (1, 0xFFFF_FFFF, OP_ACQ_STRICT_GEQ, false),
        (1, 0xFFFF_FFFF, OP_ACQ_CIRC_GEQ, true),
        (0x8000_0001, 1, OP_ACQ_CIRC_GEQ, false),
        (0b1100, 0b0100, OP_ACQ_AND, true),
        (0b1000, 0b0100, OP_ACQ_AND, false),
        (0xFFFF_FF00, 0x0000_00F0, OP_ACQ_NOR, true),
        (0xFFFF_FF00, 0x0000_00FF, OP_ACQ_NOR, false),
    ];
    for &(value, payload, op, ok) in cases {
        let mut rig = Rig::new();
        rig.set(SEM, &(value as u32).to_le_bytes());
        assert_eq!(
            sem_execute(&mut rig, SEM, payload, op).is_ok(),
            ok,
            "{value:#x} {payload:#x} op {op}"
        );
    }
    // 64-bit: the upper word takes part.
    let cases64: &[(u64, u64, u32, bool)] = &[
        (0x1_0000_0000, 0x1_0000_0000, OP_ACQUIRE, true),
        (0x1_0000_0000, 0, OP_ACQUIRE, false),
        (0x8000_0000_0000_0000, 1, OP_ACQ_STRICT_GEQ, true),
        (0x8000_0000_0000_0001, 1, OP_ACQ_CIRC_GEQ, false),
        (1, u64::MAX, OP_ACQ_CIRC_GEQ, true),
        (
            0xFFFF_FFFF_0000_0000,
            0x0000_0000_FFFF_FFFF,
            OP_ACQ_NOR,
            false,
        ),
        (
            0xFFFF_FFFF_0000_0000,
            0x0000_0000_0FFF_FFFF,
            OP_ACQ_NOR,
            true,
        ),
    ];
    for &(value, payload, op, ok) in cases64 {
        let mut rig = Rig::new();
        rig.set(SEM, &value.to_le_bytes());
        assert_eq!(
            sem_execute(&mut rig, SEM, payload, op | PAYLOAD_64).is_ok(),
            ok,
            "{value:#x} {payload:#x} op {op}"
        );
    }
}

#[test]
fn an_unsatisfied_acquire_waits_and_resumes_exactly_there() {
    let mut rig = Rig::new();
    rig.feed(&methods(&[(SET_OBJECT, 0xC6B5)])).unwrap();
    let mut stream = methods(&sem_regs(SEM, 3, 0));
    stream.extend(methods(&[(SEM_EXECUTE, OP_ACQ_STRICT_GEQ)]));
    stream.extend([inc(0, 0x300, 2), 0xA, 0xB]);
    let halt = rig.feed(&stream).unwrap_err();
    assert_eq!(
        halt.consumed,
        stream.len() * 4 - 12,
        "stops on the SEM_EXECUTE word"
    );
    let pending = rig.channel.pending_acquire().unwrap();
    assert_eq!((pending.va, pending.payload), (SEM, 3));
    assert!(
        rig.log.borrow().calls.is_empty(),
        "nothing after the acquire ran"
    );
    // Still not satisfied: Wait again, no progress, nothing repeated.
    rig.set(SEM, &2u32.to_le_bytes());
    assert!(rig.resume().is_err());
    rig.set(SEM, &3u32.to_le_bytes());
    rig.resume().unwrap();
    rig.feed(&bytes_words(&stream[stream.len() - 3..])).unwrap();
    assert_eq!(rig.log.borrow().calls, vec![(0x300, 0xA), (0x304, 0xB)]);
    assert!(rig.channel.pending_acquire().is_none());
}

fn bytes_words(w: &[u32]) -> Vec<u32> {
    w.to_vec()
}

#[test]
fn reduction_legality_follows_the_table() {
    // Note §2.3: IMIN/IMAX U,S at 32/64; IXOR/IAND/IOR any; IADD 32 U,S and 64 U; INC/DEC 32 U only.
    use PayloadSize::*;
    use ReductionFormat::*;
    let legal = |r: u32, f: ReductionFormat, s: PayloadSize| -> bool {
        match r {
            0..=4 => true,
            5 => !(s == Bits64 && f == Signed),
            6 | 7 => s == Bits32 && f == Unsigned,
            _ => unreachable!(),
        }
    };
    for r in 0..8u32 {
        for f in [Signed, Unsigned] {
            for s in [Bits32, Bits64] {
                let op = ReductionOp::from_field(r).unwrap();
                assert_eq!(
                    check_reduction(op, f, s).is_ok(),
                    legal(r, f, s),
                    "{r} {f:?} {s:?}"
                );
                // And through SEM_EXECUTE.
                let mut rig = Rig::new();
                let exec = OP_REDUCTION
                    | reduction(r)
                    | if f == Unsigned { UNSIGNED } else { 0 }
                    | if s == Bits64 { PAYLOAD_64 } else { 0 };
                assert_eq!(sem_execute(&mut rig, SEM, 1, exec).is_ok(), legal(r, f, s));
            }
        }
    }
    // REDUCTION values 8..15 are not defined.
    let mut rig = Rig::new();
    assert!(sem_execute(&mut rig, SEM, 1, OP_REDUCTION | reduction(8) | UNSIGNED).is_err());
}

fn reduce_via_sem_execute(initial: u64, payload: u64, exec: u32) -> u64 {
    let mut rig = Rig::new();
    rig.set(SEM, &initial.to_le_bytes());
    sem_execute(&mut rig, SEM, payload, OP_REDUCTION | exec).unwrap();
    u64::from_le_bytes(rig.bytes_at(SEM, 8).try_into().unwrap())
}

#[test]
fn reduction_results() {
    let u32r = |init: u32, p: u32, r: u32, fmt: u32| {
        reduce_via_sem_execute(init as u64, p as u64, reduction(r) | fmt) as u32
    };
    assert_eq!(u32r(0xFFFF_FFFF, 1, 0, 0), 0xFFFF_FFFF); // IMIN signed: -1 < 1
    assert_eq!(u32r(0xFFFF_FFFF, 1, 0, UNSIGNED), 1);
    assert_eq!(u32r(0xFFFF_FFFF, 1, 1, 0), 1); // IMAX signed
    assert_eq!(u32r(0xFFFF_FFFF, 1, 1, UNSIGNED), 0xFFFF_FFFF);
    assert_eq!(u32r(0b1100, 0b1010, 2, 0), 0b0110);
    assert_eq!(u32r(0b1100, 0b1010, 3, 0), 0b1000);
    assert_eq!(u32r(0b1100, 0b1010, 4, 0), 0b1110);
    assert_eq!(u32r(0xFFFF_FFFF, 2, 5, 0), 1); // IADD wraps at 32 bits
                                               // 64-bit IADD unsigned carries into the upper word.
    assert_eq!(
        reduce_via_sem_execute(0xFFFF_FFFF, 1, reduction(5) | UNSIGNED | PAYLOAD_64),
        0x1_0000_0000
    );
    // 32-bit reductions leave the upper word alone.
    assert_eq!(
        reduce_via_sem_execute(0xAAAA_AAAA_0000_0001, 1, reduction(5) | UNSIGNED) >> 32,
        0xAAAA_AAAA
    );
}

#[test]
fn inc_and_dec_wrap_rules() {
    // INC: v = (v >= p) ? 0 : v + 1.  DEC: v = (v == 0 || v > p) ? p : v - 1.
    let inc =
        |v: u32, p: u32| reduce_via_sem_execute(v as u64, p as u64, reduction(6) | UNSIGNED) as u32;
    let dec =
        |v: u32, p: u32| reduce_via_sem_execute(v as u64, p as u64, reduction(7) | UNSIGNED) as u32;
    assert_eq!(inc(3, 10), 4);
    assert_eq!(inc(10, 10), 0);
    assert_eq!(inc(11, 10), 0);
    assert_eq!(inc(0, 0), 0, "INC with payload 0 releases 0");
    assert_eq!(inc(0xFFFF_FFFE, 0xFFFF_FFFF), 0xFFFF_FFFF);
    assert_eq!(dec(3, 10), 2);
    assert_eq!(dec(0, 10), 10);
    assert_eq!(dec(11, 10), 10);
    assert_eq!(dec(10, 10), 9);
    assert_eq!(dec(5, 0), 0, "DEC with payload 0 releases 0");
}

#[test]
fn reduction_with_timestamp_writes_the_timestamp_first_layout() {
    let mut rig = Rig::new();
    rig.set(SEM, &5u32.to_le_bytes());
    sem_execute(
        &mut rig,
        SEM,
        2,
        OP_REDUCTION | reduction(5) | UNSIGNED | TIMESTAMP_EN,
    )
    .unwrap();
    let b = rig.bytes_at(SEM, 16);
    assert_eq!(&b[0..8], &7u64.to_le_bytes());
    assert_eq!(&b[8..16], &0x1111_2222_3333_0000u64.to_le_bytes());
}

#[test]
fn set_object_binds_classes_to_subchannels() {
    let mut rig = Rig::new();
    // Unbound subchannel.
    let halt = rig.feed(&[inc(4, 0x300, 1), 1]).unwrap_err();
    assert!(matches!(
        halt.stop,
        ChannelStop::Fault(ChannelError::Unbound { .. })
    ));
    let mut rig = Rig::new();
    // NVCLASS 15:0 with a non-zero ENGINE field 20:16 still names class 0xC6B5.
    rig.feed(&[inc(4, SET_OBJECT, 1), 0x0001_C6B5, inc(4, 0x300, 2), 1, 2])
        .unwrap();
    assert_eq!(rig.channel.bound_class(4), Some(0xC6B5));
    assert_eq!(rig.log.borrow().calls, vec![(0x300, 1), (0x304, 2)]);
    // A class the channel does not have, and the software engine, are refused by name.
    let halt = rig.feed(&[inc(1, SET_OBJECT, 1), 0xA140]).unwrap_err();
    assert!(halt.stop.to_string().contains("0xa140"), "{}", halt.stop);
    rig.channel.decoder_mut().discard_held();
    assert!(rig.feed(&[inc(1, SET_OBJECT, 1), 0x001F_C6B5]).is_err());
}

#[test]
fn host_methods_ignore_the_subchannel() {
    let mut rig = Rig::new();
    let words = [
        inc(5, SEM_ADDR_LO, 4),
        SEM as u32,
        (SEM >> 32) as u32,
        0x77,
        0,
        inc(7, SEM_EXECUTE, 1),
        OP_RELEASE,
    ];
    rig.feed(&words).unwrap();
    assert_eq!(rig.bytes_at(SEM, 4), [0x77, 0, 0, 0]);
}

#[test]
fn engine_wait_retries_the_same_method_only() {
    let mut rig = Rig::new();
    rig.feed(&methods(&[(SET_OBJECT, 0xC6B5)])).unwrap();
    rig.log.borrow_mut().waits = 2;
    let words = [inc(0, 0x400, 3), 1, 2, 3];
    let halt = rig.feed(&words).unwrap_err();
    assert!(matches!(halt.stop, ChannelStop::Wait { .. }));
    assert!(rig.resume().is_err());
    rig.resume().unwrap();
    assert_eq!(
        rig.log.borrow().calls,
        vec![(0x400, 1), (0x400, 1), (0x400, 1)]
    );
    rig.feed(&[]).unwrap();
    let consumed = halt.consumed / 4;
    rig.feed(&words[consumed..]).unwrap();
    assert_eq!(
        rig.log.borrow().calls,
        vec![(0x400, 1), (0x400, 1), (0x400, 1), (0x404, 2), (0x408, 3)]
    );
}

#[test]
fn other_host_methods() {
    let mut rig = Rig::new();
    rig.feed(&methods(&[
        (NOP, 0),
        (NON_STALL_INTERRUPT, 0),
        (SET_REFERENCE, 0x1234),
        (WFI, 1),
    ]))
    .unwrap();
    assert_eq!(rig.channel.registers().reference, 0x1234);
    assert_eq!(rig.channel.counters().non_stall_interrupts, 1);
    // MEM_OP_D: MEMBAR (5) with MEM_OP_C MEMBAR_TYPE SYS_MEMBAR, a TLB invalidate (9), L2 flush (0x10).
    rig.feed(&methods(&[
        (MEM_OP_C, 0),
        (MEM_OP_D, 5 << 27),
        (MEM_OP_D, 9 << 27),
        (MEM_OP_D, 0x10 << 27),
    ]))
    .unwrap();
    assert_eq!(rig.channel.counters().membars, 1);
    assert_eq!(rig.channel.counters().tlb_invalidates, 1);
    assert_eq!(rig.channel.counters().l2_operations, 1);
    // MMU_OPERATION (0x0B) exists only in C76F.
    let halt = rig.feed(&methods(&[(MEM_OP_D, 0x0B << 27)])).unwrap_err();
    assert!(halt.stop.to_string().contains("MEM_OP_D"), "{}", halt.stop);
    rig.channel.decoder_mut().discard_held();
    // ILLEGAL and unknown host methods fault, naming the method.
    let halt = rig.feed(&methods(&[(ILLEGAL, 0)])).unwrap_err();
    assert!(halt.stop.to_string().contains("ILLEGAL"));
    rig.channel.decoder_mut().discard_held();
    let halt = rig.feed(&methods(&[(0x70, 0)])).unwrap_err();
    assert!(matches!(
        &halt.stop,
        ChannelStop::Fault(ChannelError::Method {
            source: EngineError::UnknownMethod,
            ..
        })
    ));
    rig.channel.decoder_mut().discard_held();
    // YIELD TSG (3) pauses the stream after the method.
    let fed = rig.feed(&[imm(0, YIELD, 3), imm(0, NOP, 0)]).unwrap();
    assert_eq!(
        (fed.end, fed.consumed),
        (sassport_pushbuffer::FedEnd::Paused, 4)
    );
    // SEM_EXECUTE reserved bits are refused.
    assert!(sem_execute(&mut rig, SEM, 0, OP_RELEASE | 1 << 5).is_err());
}

#[test]
fn sem_execute_refuses_fields_outside_the_legal_combinations() {
    // Acquires take ACQUIRE_SWITCH_TSG (12) and PAYLOAD_SIZE only; releases RELEASE_WFI (20),
    // PAYLOAD_SIZE and RELEASE_TIMESTAMP (25).
    let mut rig = Rig::new();
    sem_execute(&mut rig, SEM, 0, OP_ACQUIRE | 1 << 12 | PAYLOAD_64).unwrap();
    for bad in [
        OP_ACQUIRE | TIMESTAMP_EN,
        OP_ACQUIRE | 1 << 20,
        OP_ACQUIRE | reduction(5),
        OP_RELEASE | 1 << 12,
        OP_RELEASE | UNSIGNED,
    ] {
        let mut rig = Rig::new();
        assert!(sem_execute(&mut rig, SEM, 0, bad).is_err(), "{bad:#x}");
    }
}
