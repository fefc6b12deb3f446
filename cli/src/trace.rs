//! `sassport trace PUSHBUFFER...`: print the methods of pushbuffer streams.
//!
//! The files are consecutive segments of one channel's stream (method data may continue from one file
//! into the next); an END_PB_SEGMENT entry ends its file. Each line shows the stream byte offset of the
//! word carrying the data, the subchannel, the method byte offset (with its class and host-method name
//! where known) and the data word.

use anyhow::{bail, Context};
use sassport_engines::channel::methods::{host_method_name, FIRST_ENGINE_METHOD, SET_OBJECT};
use sassport_pushbuffer::{Decoder, FedEnd, Flow, HaltCause, MethodCall};
use std::convert::Infallible;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Pushbuffer files (raw little-endian 32-bit words), in stream order.
    #[arg(required = true)]
    pub pushbuffers: Vec<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut decoder = Decoder::new();
    let mut classes = [None::<u32>; 8];
    for path in &args.pushbuffers {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        writeln!(out, "# {} ({} bytes)", path.display(), bytes.len())?;
        let mut write_err = None;
        let mut sink = |call: MethodCall| -> Result<Flow, Infallible> {
            if call.method == SET_OBJECT {
                classes[call.subchannel as usize & 7] = Some(call.data & 0xFFFF);
            }
            if let Err(e) = writeln!(out, "{}", format_call(&call, classes[call.subchannel as usize & 7])) {
                write_err.get_or_insert(e);
            }
            Ok(Flow::Continue)
        };
        let start = decoder.position();
        let fed = decoder.feed(&bytes, &mut sink);
        drop(sink);
        if let Some(e) = write_err {
            return Err(e.into());
        }
        match fed {
            Ok(fed) => {
                if fed.end == FedEnd::EndOfSegment {
                    writeln!(
                        out,
                        "{:08x}  END_PB_SEGMENT: the remaining {} bytes of {} are ignored",
                        decoder.position() - 4,
                        bytes.len() - fed.consumed,
                        path.display()
                    )?;
                }
                if let Err(e) = decoder.end_segment() {
                    out.flush()?;
                    bail!("{}: {e}", path.display());
                }
            }
            Err(halt) => {
                out.flush()?;
                match halt.cause {
                    HaltCause::Invalid(e) => bail!("{} (byte {:#x} of the file): {e}", path.display(), e.offset - start),
                    HaltCause::Sink(never) => match never {},
                }
            }
        }
    }
    out.flush()?;
    decoder.finish().context("the stream is incomplete")?;
    Ok(())
}

/// One trace line.
pub fn format_call(call: &MethodCall, class: Option<u32>) -> String {
    let name = if call.method < FIRST_ENGINE_METHOD {
        host_method_name(call.method).unwrap_or("(unknown host method)").to_owned()
    } else {
        match class {
            Some(c) => format!("{c:04X}"),
            None => "(unbound)".to_owned(),
        }
    };
    format!("{:08x}  subc {}  {:#06x} {:<20} {:#010x}", call.offset, call.subchannel, call.method, name, call.data)
}
