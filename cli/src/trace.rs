//! `sassport trace PUSHBUFFER...`: print the methods of pushbuffer streams.
//!
//! The files are consecutive segments of one channel's stream (method data may continue from one file
//! into the next); an END_PB_SEGMENT entry ends its file. Each line shows the stream byte offset of the
//! word carrying the data, the subchannel, the method byte offset (with its class and host-method name
//! where known) and the data word. `--entries` also prints the header words.

use anyhow::{bail, Context};
use sassport_engines::channel::methods::{host_method_name, FIRST_ENGINE_METHOD, SET_OBJECT};
use sassport_pushbuffer::{Decoder, FedEnd, Flow, HaltCause, Header, MethodCall, MethodSink};
use std::convert::Infallible;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Pushbuffer files (raw little-endian 32-bit words), in stream order.
    #[arg(required = true)]
    pub pushbuffers: Vec<PathBuf>,
    /// Also print each header word (kind, subchannel, method, count).
    #[arg(long)]
    pub entries: bool,
}

/// Prints calls (and optionally entries), remembering SET_OBJECT bindings to name classes.
struct Printer<W: Write> {
    out: W,
    entries: bool,
    classes: [Option<u32>; 8],
    error: Option<std::io::Error>,
}

impl<W: Write> Printer<W> {
    fn line(&mut self, text: std::fmt::Arguments<'_>) {
        if self.error.is_none() {
            if let Err(e) = self
                .out
                .write_fmt(text)
                .and_then(|_| self.out.write_all(b"\n"))
            {
                self.error = Some(e);
            }
        }
    }
}

impl<W: Write> MethodSink for Printer<W> {
    type Error = Infallible;

    fn call(&mut self, call: MethodCall) -> Result<Flow, Infallible> {
        if call.method == SET_OBJECT {
            self.classes[call.subchannel as usize & 7] = Some(call.data & 0xFFFF);
        }
        let line = format_call(&call, self.classes[call.subchannel as usize & 7]);
        self.line(format_args!("{line}"));
        Ok(Flow::Continue)
    }

    fn entry(&mut self, offset: u64, word: u32, header: Header) {
        if !self.entries {
            return;
        }
        let what = match header {
            Header::Nop => "NOP entry".to_owned(),
            Header::Methods {
                mode,
                subchannel,
                method,
                count,
            } => {
                format!(
                    "{} header: subc {subchannel}, method {:#06x}, count {count}",
                    mode.name(),
                    method << 2
                )
            }
            Header::Immediate {
                subchannel,
                method,
                data,
            } => {
                format!(
                    "immediate header: subc {subchannel}, method {:#06x}, data {data:#x}",
                    method << 2
                )
            }
            Header::EndSegment => "END_PB_SEGMENT".to_owned(),
        };
        self.line(format_args!("{offset:08x}  [{word:08x}] {what}"));
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut printer = Printer {
        out: std::io::BufWriter::new(stdout.lock()),
        entries: args.entries,
        classes: [None; 8],
        error: None,
    };
    let mut decoder = Decoder::new();
    for path in &args.pushbuffers {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        printer.line(format_args!("# {} ({} bytes)", path.display(), bytes.len()));
        let start = decoder.position();
        let fed = decoder.feed(&bytes, &mut printer);
        if let Some(e) = printer.error.take() {
            return Err(e.into());
        }
        match fed {
            Ok(fed) => {
                if fed.end == FedEnd::EndOfSegment {
                    printer.line(format_args!(
                        "{:08x}  END_PB_SEGMENT: the remaining {} bytes of {} are ignored",
                        decoder.position() - 4,
                        bytes.len() - fed.consumed,
                        path.display()
                    ));
                }
                if let Err(e) = decoder.end_segment() {
                    printer.out.flush()?;
                    bail!("{}: {e}", path.display());
                }
            }
            Err(halt) => {
                printer.out.flush()?;
                match halt.cause {
                    HaltCause::Invalid(e) => {
                        bail!(
                            "{} (byte {:#x} of the file): {e}",
                            path.display(),
                            e.offset - start
                        )
                    }
                    HaltCause::Sink(never) => match never {},
                }
            }
        }
    }
    printer.out.flush()?;
    if let Some(e) = printer.error.take() {
        return Err(e.into());
    }
    decoder.finish().context("the stream is incomplete")?;
    Ok(())
}

/// One trace line.
pub fn format_call(call: &MethodCall, class: Option<u32>) -> String {
    let name = if call.method < FIRST_ENGINE_METHOD {
        host_method_name(call.method)
            .unwrap_or("(unknown host method)")
            .to_owned()
    } else {
        match class {
            Some(c) => format!("{c:04X}"),
            None => "(unbound)".to_owned(),
        }
    };
    format!(
        "{:08x}  subc {}  {:#06x} {:<20} {:#010x}",
        call.offset, call.subchannel, call.method, name, call.data
    )
}
