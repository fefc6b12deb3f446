//! Pushbuffer decoder: arbitrary bytes, split at data-chosen points, with a sink that fails on
//! data-chosen calls. Checks: no panic; the split stream yields the same accepted calls as the whole
//! stream; every failed call is delivered again before anything else; offsets never go backwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_pushbuffer::{Decoder, Flow, MethodCall};
use std::convert::Infallible;

fn whole(stream: &[u8]) -> (Vec<MethodCall>, bool) {
    let mut calls = Vec::new();
    let mut d = Decoder::new();
    let r = d.feed(stream, &mut |c: MethodCall| -> Result<Flow, Infallible> {
        calls.push(c);
        Ok(Flow::Continue)
    });
    (calls, r.is_err())
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (control, stream) = data.split_at(2);
    let step = 1 + control[0] as usize % 13;
    let fail_every = 2 + control[1] as usize % 7;
    let (expected, invalid) = whole(stream);

    let mut d = Decoder::new();
    let mut accepted: Vec<MethodCall> = Vec::new();
    let mut last_failed: Option<MethodCall> = None;
    let mut attempt = 0usize;
    let mut pos = 0usize;
    let mut halted_invalid = false;
    let mut rounds = 0usize;
    while pos < stream.len() || d.held_word().is_some() {
        rounds += 1;
        assert!(rounds < 8 * stream.len() + 16, "no progress");
        let end = (pos + step).min(stream.len());
        let mut sink = |c: MethodCall| -> Result<Flow, ()> {
            if let Some(f) = last_failed.take() {
                assert_eq!(f, c, "a failed call must be retried first");
            }
            attempt += 1;
            if attempt % fail_every == 0 {
                last_failed = Some(c);
                return Err(());
            }
            if let Some(prev) = accepted.last() {
                assert!(c.offset > prev.offset);
            }
            accepted.push(c);
            Ok(Flow::Continue)
        };
        match d.feed(&stream[pos..end], &mut sink) {
            Ok(fed) => {
                pos += fed.consumed;
                if fed.end == sassport_pushbuffer::FedEnd::EndOfSegment {
                    break;
                }
            }
            Err(h) => {
                pos += h.consumed;
                if let sassport_pushbuffer::HaltCause::Invalid(_) = h.cause {
                    halted_invalid = true;
                    break;
                }
            }
        }
    }
    assert_eq!(halted_invalid, invalid);
    assert_eq!(accepted, expected);
});
