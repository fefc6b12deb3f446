//! The streaming method decoder: pushbuffer bytes in, method calls out.
//!
//! One decoder per channel. Input arrives as byte slices of any length and alignment; a word split
//! across two slices is completed from the next one. Method data may continue into the next GP segment:
//! the decoder's state persists between calls.
//!
//! Retry: when the sink fails (or asks to wait) on a call, the decoder keeps that word and the whole
//! state it was decoded in; the next [`Decoder::feed`] or [`Decoder::resume`] delivers the very same call
//! first. A call the sink accepted is never delivered again.

use crate::header::{Header, HeaderError, Mode};
use std::fmt;

/// One method call: subchannel, method byte offset and data word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MethodCall {
    /// Subchannel 0..7 from the header.
    pub subchannel: u8,
    /// Method byte offset (dword address × 4, at most 0x3FFC).
    pub method: u32,
    /// The data word.
    pub data: u32,
    /// Stream byte offset of the word carrying the data (the header itself for immediate data).
    pub offset: u64,
}

/// What the sink wants after accepting a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep decoding.
    Continue,
    /// Stop after this call (the call is accepted); the caller resumes later.
    Pause,
}

/// Receives method calls. Returning `Err` leaves the call with the decoder for a retry.
pub trait MethodSink {
    /// The sink's error (may include a "wait, retry later" case).
    type Error;
    /// Handles one call.
    fn call(&mut self, call: MethodCall) -> Result<Flow, Self::Error>;

    /// Sees each valid entry word that is not method data (method headers, immediates before their
    /// call, NOPs, END_PB_SEGMENT), with its stream offset; for tracing. An immediate header whose call
    /// failed is seen again when it is retried. Does nothing by default.
    #[inline(always)]
    fn entry(&mut self, _offset: u64, _word: u32, _header: Header) {}
}

impl<E, F: FnMut(MethodCall) -> Result<Flow, E>> MethodSink for F {
    type Error = E;
    #[inline]
    fn call(&mut self, call: MethodCall) -> Result<Flow, E> {
        self(call)
    }
}

/// An invalid entry in the stream, with the byte offset and value of the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pushbuffer word {word:#010x} at byte {offset:#x}: {kind}")]
pub struct DecodeError {
    /// Stream byte offset of the word.
    pub offset: u64,
    /// The word.
    pub word: u32,
    /// What is wrong with it.
    pub kind: HeaderError,
}

/// Why a stream did not end cleanly (see [`Decoder::finish`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IncompleteStream {
    /// A header promised more data words than the stream holds.
    #[error("stream ends inside a method burst: {remaining} data word(s) for method {method:#x} on subchannel {subchannel} missing after byte {offset:#x}")]
    MissingData {
        subchannel: u8,
        method: u32,
        remaining: u32,
        offset: u64,
    },
    /// The stream ends with 1–3 bytes of a word.
    #[error("stream ends with {bytes} byte(s) of an incomplete word at byte {offset:#x}")]
    PartialWord { bytes: usize, offset: u64 },
    /// A word is still held for retry.
    #[error("the word at byte {offset:#x} was never accepted")]
    HeldWord { offset: u64 },
}

/// How a [`Decoder::feed`] call ended without error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FedEnd {
    /// Every input byte was taken.
    InputExhausted,
    /// An END_PB_SEGMENT entry was decoded: the rest of this GP segment is to be ignored.
    EndOfSegment,
    /// The sink asked to pause.
    Paused,
}

/// A [`Decoder::feed`] that ended without error: `consumed` input bytes were taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fed {
    /// Input bytes taken (all of them for [`FedEnd::InputExhausted`]).
    pub consumed: usize,
    /// Why feeding stopped.
    pub end: FedEnd,
}

/// Why a [`Decoder::feed`] stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HaltCause<E> {
    /// The sink failed on the held call.
    Sink(E),
    /// The held word is not a valid entry.
    Invalid(DecodeError),
}

/// A [`Decoder::feed`] that stopped on an error. The offending word is held by the decoder (it counts
/// as consumed); feeding again retries it before any new input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Halt<E> {
    /// Input bytes taken, including the held word's.
    pub consumed: usize,
    /// What went wrong.
    pub cause: HaltCause<E>,
}

impl<E: fmt::Display> fmt::Display for Halt<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            HaltCause::Sink(e) => e.fmt(f),
            HaltCause::Invalid(e) => e.fmt(f),
        }
    }
}

/// A burst of method data in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Burst {
    /// Addressing of the remaining words (an increment-once burst becomes non-incrementing after its
    /// first word).
    pub mode: Mode,
    /// Subchannel.
    pub subchannel: u8,
    /// Method dword index of the next data word.
    pub method: u32,
    /// Data words still expected.
    pub remaining: u32,
}

enum Step<E> {
    Continue,
    Pause,
    EndSegment,
    Halt(HaltCause<E>),
}

/// Decoder state between words: the burst in progress (`remaining` 0: expecting a header). After each
/// data word `method += step; step = next_step`, which covers all three addressing modes without a
/// branch: incrementing (1, 1), non-incrementing (0, 0), increment-once (1, 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    remaining: u32,
    method: u32,
    step: u32,
    next_step: u32,
    subchannel: u8,
}

impl State {
    #[inline(always)]
    fn advance(&mut self) {
        self.remaining -= 1;
        self.method += self.step;
        self.step = self.next_step;
    }

    fn start(mode: Mode, subchannel: u8, method: u32, count: u32) -> State {
        let (step, next_step) = match mode {
            Mode::Incrementing => (1, 1),
            Mode::NonIncrementing => (0, 0),
            Mode::IncrementOnce => (1, 0),
        };
        State {
            remaining: count,
            method,
            step,
            next_step,
            subchannel,
        }
    }
}

/// Streaming pushbuffer decoder for one channel.
#[derive(Clone, Debug, Default)]
pub struct Decoder {
    state: State,
    carry: [u8; 4],
    carry_len: usize,
    held: Option<u32>,
    /// Stream offset of the next word to process (the held word, if any).
    position: u64,
}

impl Decoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stream byte offset of the next word to be processed.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The burst in progress, if any.
    pub fn burst(&self) -> Option<Burst> {
        let s = self.state;
        (s.remaining != 0).then_some(Burst {
            mode: match (s.step, s.next_step) {
                (1, 1) => Mode::Incrementing,
                (1, _) => Mode::IncrementOnce,
                _ => Mode::NonIncrementing,
            },
            subchannel: s.subchannel,
            method: s.method,
            remaining: s.remaining,
        })
    }

    /// The word held for retry after a failure, if any.
    pub fn held_word(&self) -> Option<u32> {
        self.held
    }

    /// Whether the decoder is between entries with nothing held or buffered.
    pub fn is_idle(&self) -> bool {
        self.state.remaining == 0 && self.held.is_none() && self.carry_len == 0
    }

    /// Checks that the stream ended cleanly: no burst waiting for data, no partial word, nothing held.
    pub fn finish(&self) -> Result<(), IncompleteStream> {
        if self.held.is_some() {
            return Err(IncompleteStream::HeldWord {
                offset: self.position,
            });
        }
        if self.carry_len != 0 {
            return Err(IncompleteStream::PartialWord {
                bytes: self.carry_len,
                offset: self.position,
            });
        }
        if let Some(b) = self.burst() {
            return Err(IncompleteStream::MissingData {
                subchannel: b.subchannel,
                method: b.method << 2,
                remaining: b.remaining,
                offset: self.position,
            });
        }
        Ok(())
    }

    /// Ends the current GP segment: GP segments hold whole words, so buffered bytes of a partial word are
    /// an error (and are dropped). A burst in progress continues in the next segment.
    pub fn end_segment(&mut self) -> Result<(), IncompleteStream> {
        if self.carry_len != 0 {
            let bytes = self.carry_len;
            self.carry_len = 0;
            return Err(IncompleteStream::PartialWord {
                bytes,
                offset: self.position,
            });
        }
        Ok(())
    }

    /// Drops the held word (if any) without delivering it, e.g. after the caller handled a fault.
    /// The word is skipped as a whole: a data word's call is skipped, a header's entry is skipped.
    /// Returns it.
    pub fn discard_held(&mut self) -> Option<u32> {
        let w = self.held.take()?;
        if self.state.remaining != 0 {
            self.state.advance();
        }
        self.position += 4;
        Some(w)
    }

    /// Retries the held word only (no new input).
    pub fn resume<S: MethodSink>(&mut self, sink: &mut S) -> Result<Fed, Halt<S::Error>> {
        self.feed(&[], sink)
    }

    /// Decodes `input`, delivering calls to `sink`. A held word is retried first.
    pub fn feed<S: MethodSink>(
        &mut self,
        input: &[u8],
        sink: &mut S,
    ) -> Result<Fed, Halt<S::Error>> {
        if let Some(word) = self.held {
            match self.step(word, sink) {
                Step::Continue => {}
                Step::Pause => {
                    return Ok(Fed {
                        consumed: 0,
                        end: FedEnd::Paused,
                    })
                }
                Step::EndSegment => {
                    return Ok(Fed {
                        consumed: 0,
                        end: FedEnd::EndOfSegment,
                    })
                }
                Step::Halt(cause) => return Err(Halt { consumed: 0, cause }),
            }
        }
        let mut i = 0;
        if self.carry_len != 0 {
            let take = (4 - self.carry_len).min(input.len());
            self.carry[self.carry_len..self.carry_len + take].copy_from_slice(&input[..take]);
            self.carry_len += take;
            i = take;
            if self.carry_len < 4 {
                return Ok(Fed {
                    consumed: i,
                    end: FedEnd::InputExhausted,
                });
            }
            self.carry_len = 0;
            let word = u32::from_le_bytes(self.carry);
            self.held = Some(word);
            match self.step(word, sink) {
                Step::Continue => {}
                Step::Pause => {
                    return Ok(Fed {
                        consumed: i,
                        end: FedEnd::Paused,
                    })
                }
                Step::EndSegment => {
                    return Ok(Fed {
                        consumed: i,
                        end: FedEnd::EndOfSegment,
                    })
                }
                Step::Halt(cause) => return Err(Halt { consumed: i, cause }),
            }
        }
        let body = &input[i..];
        let words = body.len() / 4;
        let (consumed_words, end) = self.run_words(&body[..words * 4], sink).map_err(|h| Halt {
            consumed: i + h.consumed,
            cause: h.cause,
        })?;
        let consumed = i + consumed_words * 4;
        if end != FedEnd::InputExhausted {
            return Ok(Fed { consumed, end });
        }
        let rest = &body[words * 4..];
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carry_len = rest.len();
        Ok(Fed {
            consumed: input.len(),
            end: FedEnd::InputExhausted,
        })
    }

    /// The hot loop over whole words (`body.len()` is a multiple of 4), with the state in locals.
    /// Returns the number of words taken and why it stopped; on a halt the offending word is held.
    #[inline]
    fn run_words<S: MethodSink>(
        &mut self,
        body: &[u8],
        sink: &mut S,
    ) -> Result<(usize, FedEnd), Halt<S::Error>> {
        let base = self.position;
        let mut st = self.state;
        let mut k = 0usize;
        let n = body.len() / 4;
        let word_at = |k: usize| -> u32 {
            let b = &body[k * 4..k * 4 + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        // On exit: write the state back; words before `k` are done.
        macro_rules! exit {
            ($k:expr, $st:expr) => {{
                self.state = $st;
                self.position = base + ($k as u64) * 4;
            }};
        }
        while k < n {
            if st.remaining != 0 {
                // Data words of the burst, straight from the input.
                let end = k + (st.remaining as usize).min(n - k);
                while k < end {
                    let data = word_at(k);
                    let call = MethodCall {
                        subchannel: st.subchannel,
                        method: st.method << 2,
                        data,
                        offset: base + k as u64 * 4,
                    };
                    match sink.call(call) {
                        Ok(Flow::Continue) => {
                            st.advance();
                            k += 1;
                        }
                        Ok(Flow::Pause) => {
                            st.advance();
                            exit!(k + 1, st);
                            return Ok((k + 1, FedEnd::Paused));
                        }
                        Err(e) => {
                            exit!(k, st);
                            self.held = Some(data);
                            return Err(Halt {
                                consumed: (k + 1) * 4,
                                cause: HaltCause::Sink(e),
                            });
                        }
                    }
                }
                continue;
            }
            let word = word_at(k);
            let offset = base + k as u64 * 4;
            let header = Header::decode(word);
            if let Ok(h) = header {
                sink.entry(offset, word, h);
            }
            match header {
                Ok(Header::Methods {
                    mode,
                    subchannel,
                    method,
                    count,
                }) => {
                    if count != 0 {
                        st = State::start(mode, subchannel, method, count);
                    }
                    k += 1;
                }
                Ok(Header::Nop) => k += 1,
                Ok(Header::Immediate {
                    subchannel,
                    method,
                    data,
                }) => {
                    match sink.call(MethodCall {
                        subchannel,
                        method: method << 2,
                        data,
                        offset,
                    }) {
                        Ok(Flow::Continue) => k += 1,
                        Ok(Flow::Pause) => {
                            exit!(k + 1, st);
                            return Ok((k + 1, FedEnd::Paused));
                        }
                        Err(e) => {
                            exit!(k, st);
                            self.held = Some(word);
                            return Err(Halt {
                                consumed: (k + 1) * 4,
                                cause: HaltCause::Sink(e),
                            });
                        }
                    }
                }
                Ok(Header::EndSegment) => {
                    exit!(k + 1, st);
                    return Ok((k + 1, FedEnd::EndOfSegment));
                }
                Err(kind) => {
                    exit!(k, st);
                    self.held = Some(word);
                    let e = DecodeError { offset, word, kind };
                    return Err(Halt {
                        consumed: (k + 1) * 4,
                        cause: HaltCause::Invalid(e),
                    });
                }
            }
        }
        exit!(n, st);
        Ok((n, FedEnd::InputExhausted))
    }

    /// Processes the held word `word`. On success the word is released and the position advances; on a
    /// halt it stays held and nothing changes.
    fn step<S: MethodSink>(&mut self, word: u32, sink: &mut S) -> Step<S::Error> {
        let offset = self.position;
        let flow = if self.state.remaining != 0 {
            let st = self.state;
            let call = MethodCall {
                subchannel: st.subchannel,
                method: st.method << 2,
                data: word,
                offset,
            };
            match sink.call(call) {
                Ok(flow) => {
                    self.state.advance();
                    flow
                }
                Err(e) => return Step::Halt(HaltCause::Sink(e)),
            }
        } else {
            let header = Header::decode(word);
            if let Ok(h) = header {
                sink.entry(offset, word, h);
            }
            match header {
                Ok(Header::Nop) => Flow::Continue,
                Ok(Header::Methods { count: 0, .. }) => Flow::Continue,
                Ok(Header::Methods {
                    mode,
                    subchannel,
                    method,
                    count,
                }) => {
                    self.state = State::start(mode, subchannel, method, count);
                    Flow::Continue
                }
                Ok(Header::Immediate {
                    subchannel,
                    method,
                    data,
                }) => {
                    match sink.call(MethodCall {
                        subchannel,
                        method: method << 2,
                        data,
                        offset,
                    }) {
                        Ok(flow) => flow,
                        Err(e) => return Step::Halt(HaltCause::Sink(e)),
                    }
                }
                Ok(Header::EndSegment) => {
                    self.held = None;
                    self.position += 4;
                    return Step::EndSegment;
                }
                Err(kind) => {
                    return Step::Halt(HaltCause::Invalid(DecodeError { offset, word, kind }))
                }
            }
        };
        self.held = None;
        self.position += 4;
        match flow {
            Flow::Continue => Step::Continue,
            Flow::Pause => Step::Pause,
        }
    }
}
