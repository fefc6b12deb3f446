//! Command-line argument specs: `i32:V`, `u32:V`, `i64:V`, `u64:V`, `f32:V`, `f64:V`, `buf:PATH`, and grid or
//! block dimensions `X[,Y[,Z]]`.

use crate::kernel_run::KernelArg;
use anyhow::{anyhow, bail, Context, Result};

/// Parses `X[,Y[,Z]]` (missing dimensions are 1; every dimension at least 1).
pub fn parse_dim3(text: &str) -> Result<[u32; 3]> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        bail!("`{text}`: expected X[,Y[,Z]]");
    }
    let mut dims = [1u32; 3];
    for (d, p) in dims.iter_mut().zip(&parts) {
        *d = parse_u64(p.trim()).and_then(|v| u32::try_from(v).map_err(|_| anyhow!("too large")))
            .with_context(|| format!("`{text}`: `{p}` is not a dimension"))?;
        if *d == 0 {
            bail!("`{text}`: a dimension of 0");
        }
    }
    Ok(dims)
}

/// Parses one `--arg` spec; `buf:PATH` reads the file.
pub fn parse_arg(spec: &str) -> Result<KernelArg> {
    let (kind, value) = spec.split_once(':').ok_or_else(|| anyhow!("`{spec}`: expected KIND:VALUE"))?;
    let bad = || format!("`{spec}`: `{value}` is not a valid {kind}");
    let value_arg = |bytes: Vec<u8>| KernelArg::Value { align: bytes.len() as u32, bytes };
    Ok(match kind {
        "i32" => value_arg(parse_i64(value).and_then(|v| Ok(i32::try_from(v)?)).with_context(bad)?.to_le_bytes().to_vec()),
        "u32" => value_arg(parse_u64(value).and_then(|v| Ok(u32::try_from(v)?)).with_context(bad)?.to_le_bytes().to_vec()),
        "i64" => value_arg(parse_i64(value).with_context(bad)?.to_le_bytes().to_vec()),
        "u64" => value_arg(parse_u64(value).with_context(bad)?.to_le_bytes().to_vec()),
        "f32" => value_arg(value.parse::<f32>().with_context(bad)?.to_le_bytes().to_vec()),
        "f64" => value_arg(value.parse::<f64>().with_context(bad)?.to_le_bytes().to_vec()),
        "buf" => KernelArg::Buffer(std::fs::read(value).with_context(|| format!("`{spec}`: reading {value}"))?),
        _ => bail!("`{spec}`: unknown kind `{kind}` (i32, u32, i64, u64, f32, f64, buf)"),
    })
}

fn parse_u64(text: &str) -> Result<u64> {
    Ok(match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16)?,
        None => text.parse()?,
    })
}

fn parse_i64(text: &str) -> Result<i64> {
    match text.strip_prefix('-') {
        Some(rest) => {
            let v = parse_u64(rest)?;
            if v > 1u64 << 63 {
                bail!("out of range");
            }
            Ok((v as i64).wrapping_neg())
        }
        None => Ok(i64::try_from(parse_u64(text)?)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims() {
        assert_eq!(parse_dim3("4").unwrap(), [4, 1, 1]);
        assert_eq!(parse_dim3("4,2").unwrap(), [4, 2, 1]);
        assert_eq!(parse_dim3("0x10,2,3").unwrap(), [16, 2, 3]);
        assert!(parse_dim3("0").is_err());
        assert!(parse_dim3("1,2,3,4").is_err());
        assert!(parse_dim3("x").is_err());
    }

    #[test]
    fn values() {
        assert_eq!(parse_arg("i32:-1").unwrap(), KernelArg::Value { bytes: vec![0xff; 4], align: 4 });
        assert_eq!(parse_arg("i32:-2147483648").unwrap(), KernelArg::Value { bytes: vec![0, 0, 0, 0x80], align: 4 });
        assert!(parse_arg("i32:2147483648").is_err());
        assert_eq!(parse_arg("u64:0x10").unwrap(), KernelArg::Value { bytes: vec![16, 0, 0, 0, 0, 0, 0, 0], align: 8 });
        assert_eq!(parse_arg("f32:1.5").unwrap(), KernelArg::Value { bytes: 1.5f32.to_le_bytes().to_vec(), align: 4 });
        assert_eq!(parse_arg("i64:-9223372036854775808").unwrap(), KernelArg::Value { bytes: i64::MIN.to_le_bytes().to_vec(), align: 8 });
        assert!(parse_arg("u16:1").is_err());
        assert!(parse_arg("buf:/nonexistent/file").is_err());
        assert!(parse_arg("nocolon").is_err());
    }
}
