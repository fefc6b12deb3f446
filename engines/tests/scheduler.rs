//! GPFIFO rings, queues and the round-robin scheduler; replay of a GPFIFO stream.

mod common;

use common::*;
use sassport_engines::channel::Channel;
use sassport_engines::memory::{Access, GpuMemory};
use sassport_engines::queue::{Queue, QueueError, RunEnd};
use sassport_engines::replay::{replay, ReplayError, ReplayOptions};
use sassport_engines::ring::{GpFifoRing, RingError};
use sassport_engines::scheduler::{PassOutcome, Scheduler};
use sassport_engines::semaphore::SteppingClock;
use sassport_pushbuffer::{GpEntry, Level, Segment, Sync};

const SEM_EXECUTE: u32 = 0x06C;

/// A GP entry word pair for a segment (ENTRY0 = GET 31:2, ENTRY1 = GET_HI | LENGTH << 10).
fn gp(address: u64, words: u32) -> u64 {
    let entry0 = (address as u32) & !3;
    let entry1 = ((address >> 32) as u32 & 0xFF) | words << 10;
    (entry1 as u64) << 32 | entry0 as u64
}

#[test]
fn ring_keeps_one_slot_free() {
    let mut r = GpFifoRing::new(2).unwrap();
    assert_eq!(r.capacity(), 4);
    for i in 0..3 {
        r.push(i).unwrap();
    }
    assert_eq!(r.push(9), Err(RingError::Full { capacity: 4 }));
    assert_eq!(r.pop(), Some((0, 0)));
    r.push(3).unwrap();
    assert_eq!((r.get(), r.put()), (1, 0), "PUT wrapped");
    assert_eq!(r.len(), 3);
    assert!(matches!(r.set_put(1), Err(RingError::Overrun { .. })));
    assert!(matches!(
        r.set_put(4),
        Err(RingError::IndexOutOfRange { .. })
    ));
    assert!(matches!(GpFifoRing::new(0), Err(RingError::BadSize { .. })));
    let mut r = GpFifoRing::new(3).unwrap();
    r.write_slot(0, 10).unwrap();
    r.write_slot(1, 11).unwrap();
    r.set_put(2).unwrap();
    assert_eq!(
        (r.pop(), r.pop(), r.pop()),
        (Some((0, 10)), Some((1, 11)), None)
    );
}

/// An address space with a pushbuffer area at 0x10000 and semaphores at 0x20000.
struct World {
    memory: GpuMemory,
    next_pb: u64,
}

const SEMS: u64 = 0x20000;

impl World {
    fn new() -> Self {
        let mut memory = GpuMemory::new();
        let s = memory.add_storage(vec![0; 0x20000]);
        memory
            .map(0x10000, 0x20000, s, 0, Access::READ_WRITE)
            .unwrap();
        Self {
            memory,
            next_pb: 0x10000,
        }
    }

    /// Writes a segment and returns its GP entry.
    fn segment(&mut self, words: &[u32]) -> u64 {
        let va = self.next_pb;
        self.memory.write(va, &bytes(words)).unwrap();
        self.next_pb += (words.len() as u64 * 4 + 15) & !15;
        gp(va, words.len() as u32)
    }

    fn sem(&self, i: u64) -> u32 {
        self.memory.read_u32(SEMS + i * 16).unwrap()
    }
}

fn release(i: u64, value: u32) -> Vec<u32> {
    let va = SEMS + i * 16;
    methods(&[
        (0x5C, va as u32),
        (0x60, (va >> 32) as u32),
        (0x64, value),
        (0x68, 0),
        (SEM_EXECUTE, 1),
    ])
}

fn acquire_geq(i: u64, value: u32) -> Vec<u32> {
    let va = SEMS + i * 16;
    methods(&[
        (0x5C, va as u32),
        (0x60, (va >> 32) as u32),
        (0x64, value),
        (0x68, 0),
        (SEM_EXECUTE, 2),
    ])
}

fn queue(entries: &[u64]) -> Queue {
    let mut ring = GpFifoRing::with_room_for(entries.len()).unwrap();
    for &e in entries {
        ring.push(e).unwrap();
    }
    Queue::new(Channel::new(vec![]), ring)
}

#[test]
fn two_queues_hand_off_through_semaphores() {
    // A waits for B's release, then releases what B waits for; neither blocks the scheduler.
    let mut w = World::new();
    let a1 = w.segment(&acquire_geq(0, 1));
    let a2 = w.segment(&release(1, 1));
    let b1 = w.segment(&release(0, 1));
    let b2 = w.segment(&acquire_geq(1, 1));
    let b3 = w.segment(&release(2, 7));
    let mut s = Scheduler::new(16);
    let qa = s.add(queue(&[a1, a2]));
    let qb = s.add(queue(&[b1, b2, b3]));
    let mut clock = SteppingClock::new(0, 1);
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Idle);
    assert_eq!((w.sem(0), w.sem(1), w.sem(2)), (1, 1, 7));
    assert!(s.queue(qa).unwrap().is_drained() && s.queue(qb).unwrap().is_drained());
}

#[test]
fn a_full_pass_without_progress_reports_waiting_instead_of_spinning() {
    let mut w = World::new();
    let e = w.segment(&acquire_geq(3, 1));
    let mut s = Scheduler::new(16);
    let q = s.add(queue(&[e]));
    let mut clock = SteppingClock::new(0, 1);
    assert_eq!(
        s.run(&mut w.memory, &mut clock, u64::MAX),
        PassOutcome::Waiting
    );
    let waiting = s.queue(q).unwrap().waiting().unwrap();
    assert_eq!(waiting.entry.sequence, 0);
    assert_eq!(waiting.call.method, SEM_EXECUTE);
    // Satisfy it from outside and continue.
    w.memory.write_u32(SEMS + 3 * 16, 1).unwrap();
    assert_eq!(
        s.run(&mut w.memory, &mut clock, u64::MAX),
        PassOutcome::Idle
    );
}

#[test]
fn a_faulting_queue_does_not_stop_the_others() {
    let mut w = World::new();
    let bad = w.segment(&methods(&[(0x004, 0)])); // ILLEGAL
    let after_bad = w.segment(&release(5, 9));
    let good = w.segment(&release(4, 3));
    let mut s = Scheduler::new(16);
    let qa = s.add(queue(&[bad, after_bad]));
    s.add(queue(&[good]));
    let mut clock = SteppingClock::new(0, 1);
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Idle);
    assert_eq!(w.sem(4), 3);
    assert_eq!(w.sem(5), 0, "the faulted queue stopped");
    let fault = s.queue(qa).unwrap().fault().unwrap();
    assert!(matches!(fault, QueueError::Channel { entry, .. } if entry.sequence == 0));
    assert!(fault.to_string().contains("ILLEGAL"), "{fault}");
    assert_eq!(s.faulted().collect::<Vec<_>>(), vec![qa]);
    // Skipping the faulting word lets the queue finish.
    s.queue_mut(qa).unwrap().skip_fault();
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Idle);
    assert_eq!(w.sem(5), 9);
}

#[test]
fn budgets_count_attempts_and_rotate_queues() {
    // Each queue adds 1 to its own counter 40 times (five methods per IADD); with a budget of 5
    // attempts per turn the queues interleave group by group.
    let mut w = World::new();
    let add = |i: u64| {
        let va = SEMS + i * 16;
        methods(&[
            (0x5C, va as u32),
            (0x60, 0),
            (0x64, 1),
            (0x68, 0),
            (SEM_EXECUTE, 6 | 5 << 27 | 1 << 31),
        ])
    };
    let mut wa = vec![];
    let mut wb = vec![];
    for _ in 0..40 {
        wa.extend(add(0));
        wb.extend(add(1));
    }
    let ea = w.segment(&wa);
    let eb = w.segment(&wb);
    let mut s = Scheduler::new(5);
    s.add(queue(&[ea]));
    s.add(queue(&[eb]));
    let mut clock = SteppingClock::new(0, 1);
    // After one pass each queue ran at most 5 attempts (1 GP entry + 4 methods).
    assert_eq!(s.pass(&mut w.memory, &mut clock), PassOutcome::Progress);
    assert_eq!(
        (w.sem(0), w.sem(1)),
        (0, 0),
        "SEM_EXECUTE is the 5th method of each group"
    );
    assert_eq!(s.pass(&mut w.memory, &mut clock), PassOutcome::Progress);
    assert_eq!((w.sem(0), w.sem(1)), (1, 1));
    assert_eq!(s.run(&mut w.memory, &mut clock, 1000), PassOutcome::Idle);
    assert_eq!((w.sem(0), w.sem(1)), (40, 40));
}

#[test]
fn entries_are_checked_and_faults_name_them() {
    let mut w = World::new();
    let ok = w.segment(&release(0, 1));
    let mut q = queue(&[ok, 1 << 32 /* ILLEGAL control */]);
    let mut clock = SteppingClock::new(0, 1);
    let mut ctx = sassport_engines::channel::EngineContext {
        memory: &mut w.memory,
        clock: &mut clock,
    };
    assert_eq!(q.run(&mut ctx, 100).end, RunEnd::Faulted);
    let f = q.fault().unwrap();
    assert_eq!(f.entry().sequence, 1);
    assert!(f.to_string().contains("ILLEGAL"), "{f}");
    // A segment outside the mapped memory.
    let mut q = queue(&[gp(0x9_0000_0000, 4)]);
    assert_eq!(q.run(&mut ctx, 100).end, RunEnd::Faulted);
    assert!(matches!(
        q.fault(),
        Some(QueueError::Fetch {
            address: 0x9_0000_0000,
            ..
        })
    ));
}

#[test]
fn method_data_straddles_gp_entries_and_end_segment_skips() {
    let mut w = World::new();
    let va = SEMS + 0x40;
    let part1 = w.segment(&[inc(0, 0x5C, 5), va as u32, 0]);
    let part2 = w.segment(&[0x42, 0, 1, 0xE000_0000, 0xDEAD_BEEF /* ignored */]);
    let mut q = queue(&[part1, part2]);
    let mut clock = SteppingClock::new(0, 1);
    let mut ctx = sassport_engines::channel::EngineContext {
        memory: &mut w.memory,
        clock: &mut clock,
    };
    assert_eq!(q.run(&mut ctx, 100).end, RunEnd::Drained);
    assert_eq!(w.memory.read_u32(va).unwrap(), 0x42);
}

fn image_with(words_at: &[(u64, Vec<u32>)], size: usize) -> Vec<u8> {
    let mut img = vec![0u8; size];
    for (at, words) in words_at {
        let b = bytes(words);
        img[*at as usize..*at as usize + b.len()].copy_from_slice(&b);
    }
    img
}

#[test]
fn replay_runs_a_stream_and_reports_stalls_and_faults() {
    let rel = methods(&[
        (0x5C, 0x800),
        (0x60, 0),
        (0x64, 0xABCD),
        (0x68, 0),
        (SEM_EXECUTE, 1 | 1 << 25),
    ]);
    let img = image_with(&[(0x100, rel.clone())], 0x1000);
    let gpfifo: Vec<u8> = [gp(0x100, rel.len() as u32), 0]
        .iter()
        .flat_map(|e| e.to_le_bytes())
        .collect();
    let opts = ReplayOptions {
        clock_step_ns: 5,
        ..ReplayOptions::new(sassport_engines::sector_layout::SectorLayout::Turing2D)
    };
    let out = replay(img.clone(), &gpfifo, &opts).unwrap();
    assert_eq!(out.entries, 2);
    assert_eq!(&out.memory[0x800..0x804], &0xABCDu32.to_le_bytes());
    assert_eq!(
        &out.memory[0x808..0x810],
        &0u64.to_le_bytes(),
        "first clock reading is 0"
    );
    assert_eq!(&out.memory[..0x800], &img[..0x800]);

    // An acquire nothing will satisfy fails promptly, naming the entry and the method.
    let acq = methods(&[
        (0x5C, 0x900),
        (0x60, 0),
        (0x64, 1),
        (0x68, 0),
        (SEM_EXECUTE, 0),
    ]);
    let img = image_with(&[(0x100, acq.clone())], 0x1000);
    let gpfifo: Vec<u8> = [0u64, gp(0x100, acq.len() as u32)]
        .iter()
        .flat_map(|e| e.to_le_bytes())
        .collect();
    let err = replay(img, &gpfifo, &opts).unwrap_err();
    assert!(matches!(err, ReplayError::Stalled { entry, .. } if entry.sequence == 1));
    let msg = err.to_string();
    assert!(
        msg.contains("GP entry 1") && msg.contains("SEM_EXECUTE"),
        "{msg}"
    );

    // Unsupported pushbuffer entries fail, naming entry and offset.
    let img = image_with(&[(0x100, vec![0x0001_0050])], 0x1000);
    let gpfifo = gp(0x100, 1).to_le_bytes();
    let msg = replay(img, &gpfifo, &opts).unwrap_err().to_string();
    assert!(
        msg.contains("GP entry 0") && msg.contains("SET_SUBDEVICE_MASK"),
        "{msg}"
    );

    // A stream that ends inside a burst is incomplete.
    let img = image_with(&[(0x100, vec![inc(0, 0x5C, 2), 0])], 0x1000);
    let gpfifo = gp(0x100, 2).to_le_bytes();
    assert!(matches!(
        replay(img, &gpfifo, &opts),
        Err(ReplayError::Incomplete(_))
    ));

    assert!(matches!(
        replay(vec![], &[0; 7], &opts),
        Err(ReplayError::GpFifoLength { len: 7 })
    ));
}

#[test]
fn gp_entries_built_here_decode_as_the_note_says() {
    assert_eq!(
        GpEntry::decode(gp(0x12_3456_7890, 9)).unwrap(),
        GpEntry::Segment(Segment {
            address: 0x12_3456_7890,
            length_words: 9,
            level: Level::Main,
            sync: Sync::Proceed
        })
    );
}

#[test]
fn a_busy_engine_makes_the_pass_report_busy() {
    let mut w = World::new();
    // SET_OBJECT 0xC6B5 on subchannel 4, one engine method, then WFI (waits for that engine).
    let e = w.segment(&[
        inc(4, 0x000, 1),
        0xC6B5,
        inc(4, 0x300, 1),
        0,
        inc(0, 0x078, 1),
        0,
    ]);
    let log = std::rc::Rc::new(std::cell::RefCell::new(Log {
        busy: true,
        ..Default::default()
    }));
    let mut ring = GpFifoRing::with_room_for(1).unwrap();
    ring.push(e).unwrap();
    let mut s = Scheduler::new(16);
    let q = s.add(Queue::new(
        Channel::new(vec![Box::new(Recorder {
            class: 0xC6B5,
            log: log.clone(),
        })]),
        ring,
    ));
    let mut clock = SteppingClock::new(0, 1);
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Busy);
    assert_eq!(s.queue(q).unwrap().waiting().unwrap().call.method, 0x078);
    log.borrow_mut().busy = false;
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Idle);
}

#[test]
fn a_late_mapping_fault_leaves_the_word_retryable() {
    let mut w = World::new();
    let target = 0x7_0000_0000u64;
    let words = methods(&[
        (0x5C, target as u32),
        (0x60, (target >> 32) as u32),
        (0x64, 0x99),
        (0x68, 0),
        (SEM_EXECUTE, 1),
    ]);
    let e = w.segment(&words);
    let mut s = Scheduler::new(64);
    let q = s.add(queue(&[e]));
    let mut clock = SteppingClock::new(0, 1);
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Idle);
    let fault = s.queue(q).unwrap().fault().unwrap();
    assert!(fault.to_string().contains("0x700000000"), "{fault}");
    // Map the page and retry: the held SEM_EXECUTE runs once.
    let st = w.memory.add_storage(vec![0; 0x1000]);
    w.memory
        .map(target, 0x1000, st, 0, Access::READ_WRITE)
        .unwrap();
    s.queue_mut(q).unwrap().retry();
    assert_eq!(s.run(&mut w.memory, &mut clock, 100), PassOutcome::Idle);
    assert_eq!(w.memory.read_u32(target).unwrap(), 0x99);
    assert!(s.queue(q).unwrap().fault().is_none());
}

/// An inline-to-memory upload of 8 bytes: bind 0xA140 to subchannel 2, LINE_LENGTH_IN 8, LINE_COUNT 1,
/// OFFSET_OUT_UPPER/OFFSET_OUT 0x200, LAUNCH_DMA pitch, then `data` LOAD_INLINE_DATA words.
fn inline_upload(data: &[u32]) -> Vec<u32> {
    let mut w = vec![inc(2, 0x000, 1), 0xA140, inc(2, 0x180, 4), 8, 1, 0, 0x200, inc(2, 0x1B0, 1), 1];
    if !data.is_empty() {
        w.push(non_inc(2, 0x1B4, data.len() as u32));
        w.extend_from_slice(data);
    }
    w
}

#[test]
fn a_stream_ending_inside_an_inline_upload_is_incomplete() {
    let opts = ReplayOptions::new(sassport_engines::sector_layout::SectorLayout::Turing2D);
    let run = |w: &[u32]| {
        let img = image_with(&[(0x40, w.to_vec())], 0x400);
        replay(img, &gp(0x40, w.len() as u32).to_le_bytes(), &opts)
    };
    // Both words: the upload lands.
    let out = run(&inline_upload(&[0x1122_3344, 0x5566_7788])).unwrap();
    assert_eq!(&out.memory[0x200..0x208], &[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55]);
    // One word of two, or none: every burst is whole, but the engine still waits for data.
    for data in [&[0x1122_3344][..], &[]] {
        let err = run(&inline_upload(data)).unwrap_err();
        assert!(matches!(err, ReplayError::EngineUnfinished(_)), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("KEPLER_INLINE_TO_MEMORY_B")
                && msg.contains(&format!("received {}; {} LOAD_INLINE_DATA word(s) missing", data.len(), 2 - data.len())),
            "{msg}"
        );
    }
    // The header promises two words and the stream holds one: the decoder's burst is incomplete.
    let mut cut = inline_upload(&[0x1122_3344, 0x5566_7788]);
    cut.pop();
    assert!(matches!(run(&cut), Err(ReplayError::Incomplete(_))));
}
