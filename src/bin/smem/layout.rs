//! Tile layouts by the names Triton and CuTe give them, as `smem advise
//! --layout` and `smem analyze --layout` read them (one parser, so the two
//! commands accept the same spellings and refuse the same mistakes), with the
//! `--tile` and `--element` options that go with them.

use core::fmt;

use smem_model::{Swizzle, TileLayout, TmaSwizzle, TritonShared};

use crate::analyze::expr::type_size;

/// A layout named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedLayout {
    Padding(u32),
    Swizzle(Swizzle),
    Tma(TmaSwizzle),
    Triton(TritonShared),
    Nvmma(u32),
}

impl NamedLayout {
    /// The packed `tile` under this layout.
    pub fn apply(self, tile: TileLayout) -> Result<TileLayout, smem_model::Error> {
        match self {
            NamedLayout::Padding(n) => tile.with_padding(n),
            NamedLayout::Swizzle(swizzle) => tile.with_swizzle(swizzle),
            NamedLayout::Tma(mode) => tile.with_tma_swizzle(mode),
            NamedLayout::Triton(shared) => tile.with_triton_shared(shared),
            NamedLayout::Nvmma(bytes) => tile.with_nvmma_swizzle(bytes),
        }
    }
}

impl fmt::Display for NamedLayout {
    /// The layout in its owner's spelling: `pad:8`, `Swizzle<3,3,3>`,
    /// `TMA 128B swizzle`, Triton's IR attributes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NamedLayout::Padding(n) => write!(f, "pad:{n}"),
            NamedLayout::Swizzle(swizzle) => write!(f, "{swizzle}"),
            NamedLayout::Tma(mode) => write!(f, "{mode}"),
            NamedLayout::Triton(shared) => write!(f, "{shared}"),
            NamedLayout::Nvmma(bytes) => {
                write!(f, "#ttg.nvmma_shared<{{swizzlingByteWidth = {bytes}}}>")
            }
        }
    }
}

/// `--layout`'s parser.
pub fn parse_layout(text: &str) -> Result<NamedLayout, String> {
    let not_a_layout = || {
        format!(
            "`{text}` is not a layout: expected pad:N, swizzle:B,M,S, Swizzle<B,M,S>, \
             tma:BYTES, triton:VEC,PERPHASE,MAXPHASE or nvmma:BYTES"
        )
    };
    let numbers = |list: &str| -> Result<Vec<u32>, String> {
        list.split(',')
            .map(|n| {
                n.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("`{}` in `{text}` is not a number", n.trim()))
            })
            .collect()
    };
    let trimmed = text.trim();
    let (kind, rest) = if let Some(inner) = trimmed
        .strip_prefix("Swizzle<")
        .or_else(|| trimmed.strip_prefix("swizzle<"))
        .and_then(|r| r.strip_suffix('>'))
    {
        ("swizzle", inner)
    } else {
        trimmed.split_once(':').ok_or_else(not_a_layout)?
    };
    let values = numbers(rest)?;
    let err = |e: smem_model::Error| e.to_string();
    match (kind, values.as_slice()) {
        ("pad", &[n]) => Ok(NamedLayout::Padding(n)),
        ("swizzle", &[b, m, s]) => Swizzle::new(b, m, s).map(NamedLayout::Swizzle).map_err(err),
        ("tma", &[bytes]) => TmaSwizzle::ALL
            .into_iter()
            .find(|mode| mode.span() == bytes)
            .map(NamedLayout::Tma)
            .ok_or_else(|| format!("TMA swizzle of {bytes} bytes: expected 32, 64 or 128")),
        ("triton", &[vec, per_phase, max_phase]) => TritonShared::new(vec, per_phase, max_phase)
            .map(NamedLayout::Triton)
            .map_err(err),
        ("nvmma", &[bytes]) => Ok(NamedLayout::Nvmma(bytes)),
        _ => Err(not_a_layout()),
    }
}

/// `32x32` as (rows, columns).
pub fn parse_tile(text: &str) -> Result<(u32, u32), String> {
    let (rows, cols) = text
        .split_once(['x', 'X', '*'])
        .ok_or_else(|| format!("`{text}` is not ROWSxCOLS: expected e.g. 32x32"))?;
    let number = |part: &str| {
        part.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{part}` in `{text}` is not a number of elements"))
    };
    Ok((number(rows)?, number(cols)?))
}

/// `4` or `float`: bytes per element.
pub fn parse_element(text: &str) -> Result<u32, String> {
    if let Ok(bytes) = text.parse::<u32>() {
        return Ok(bytes);
    }
    type_size(text.trim())
        .and_then(|size| u32::try_from(size).ok())
        .ok_or_else(|| {
            format!("`{text}` is not a size in bytes or a type (float, double, half, float4, ...)")
        })
}
