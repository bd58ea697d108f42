//! The bank diagram as an SVG picture for slides and documents.
//!
//! Written with a writer of a few lines rather than a crate: the picture needs
//! rectangles, lines, text and tooltips, and the one thing a crate would add,
//! escaping, is `escape` below. The output is a standalone SVG 1.1 document
//! with a `viewBox`, so it scales cleanly when placed on a slide.

use std::fmt::Write as _;

use super::diagram::{lanes_label, Cell, Grid};

/// Cell size and margins, in SVG user units (pixels at 100%).
const CELL_W: u32 = 30;
const CELL_H: u32 = 26;
const LEFT: u32 = 100;
const TOP: u32 = 104;
const RIGHT: u32 = 150;
const LEGEND: u32 = 60;

/// Fill colours: idle, served, shared word, write collision, conflicting bank.
const IDLE: &str = "#f3f4f6";
const SERVED: &str = "#dbeafe";
const SHARED: &str = "#bbf7d0";
const COLLISION: &str = "#fde68a";
const CONFLICT: &str = "#fecaca";
const INK: &str = "#111827";
const GREY: &str = "#6b7280";

/// A document being written.
struct Svg {
    out: String,
}

impl Svg {
    fn new(width: u32, height: u32) -> Svg {
        let mut out = String::new();
        _ = writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
        _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
        );
        _ = writeln!(
            out,
            r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
        );
        Svg { out }
    }

    #[allow(clippy::too_many_arguments)]
    fn rect(
        &mut self,
        x: u32,
        y: u32,
        w: u32,
        h: u32,
        fill: &str,
        stroke: &str,
        tip: Option<&str>,
    ) {
        let body = format!(
            r#"x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" stroke-width="1""#
        );
        match tip {
            Some(tip) => {
                _ = writeln!(
                    self.out,
                    "<rect {body}><title>{}</title></rect>",
                    escape(tip)
                )
            }
            None => _ = writeln!(self.out, "<rect {body}/>"),
        }
    }

    /// Text with its baseline at `y`; `anchor` is `start`, `middle` or `end`.
    fn text(&mut self, x: u32, y: u32, size: u32, anchor: &str, style: &str, text: &str) {
        _ = writeln!(
            self.out,
            r#"<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" {style}>{}</text>"#,
            escape(text)
        );
    }

    fn line(&mut self, x1: u32, y1: u32, x2: u32, y2: u32, stroke: &str, width: u32) {
        _ = writeln!(
            self.out,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }

    fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// Escapes the five XML special characters.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The picture: a title and a subtitle, bank numbers across, one row of cells
/// per wavefront (coloured as in the legend, each with a tooltip naming its
/// words and lanes), the lanes of each wavefront on the right, and the legend.
pub fn render(grid: &Grid, title: &str, subtitle: &str) -> String {
    let banks = grid.banks as u32;
    let rows = grid.rows.len() as u32;
    let width = LEFT + banks * CELL_W + RIGHT;
    let height = TOP + rows.max(1) * CELL_H + LEGEND;
    let mut svg = Svg::new(width, height);
    let bold = format!(r#"font-weight="bold" fill="{INK}""#);
    let plain = format!(r#"fill="{INK}""#);
    let grey = format!(r#"fill="{GREY}""#);
    svg.text(LEFT, 32, 20, "start", &bold, title);
    svg.text(LEFT, 56, 14, "start", &plain, subtitle);
    svg.text(LEFT - 10, TOP - 12, 12, "end", &grey, "wavefront");
    svg.text(
        LEFT + banks * CELL_W / 2,
        TOP - 30,
        12,
        "middle",
        &grey,
        "bank",
    );
    for bank in 0..banks {
        let x = LEFT + bank * CELL_W + CELL_W / 2;
        svg.text(x, TOP - 10, 11, "middle", &grey, &bank.to_string());
    }
    if rows == 0 {
        svg.text(
            LEFT,
            TOP + CELL_H / 2 + 4,
            13,
            "start",
            &grey,
            "no active lane: nothing is served",
        );
    }
    for (r, row) in grid.rows.iter().enumerate() {
        let r = r as u32;
        let y = TOP + r * CELL_H;
        svg.text(
            LEFT - 10,
            y + CELL_H / 2 + 4,
            12,
            "end",
            &plain,
            &(r + 1).to_string(),
        );
        for (b, cell) in row.cells.iter().enumerate() {
            let x = LEFT + b as u32 * CELL_W;
            draw_cell(&mut svg, x, y, cell, b, r + 1);
        }
        let mut label = lanes_label(row.lanes);
        if grid.phased {
            _ = write!(label, ", phase {}", row.phase);
        }
        svg.text(
            LEFT + banks * CELL_W + 10,
            y + CELL_H / 2 + 4,
            11,
            "start",
            &grey,
            &label,
        );
        // A darker rule where a new phase starts.
        if r > 0 && grid.rows[r as usize - 1].phase != row.phase {
            svg.line(LEFT, y, LEFT + banks * CELL_W, y, INK, 2);
        }
    }
    let y = TOP + rows.max(1) * CELL_H + 34;
    let mut x = LEFT;
    let cells = || grid.rows.iter().flat_map(|r| &r.cells);
    let legend = [
        (SERVED, "lane served", true),
        (
            SHARED,
            "* word shared by several lanes",
            cells().any(Cell::is_shared),
        ),
        (
            COLLISION,
            "x write collision: one write lands",
            cells().any(|c| c.collision),
        ),
        (
            CONFLICT,
            "! bank busy in several wavefronts of one phase",
            cells().any(|c| c.conflict),
        ),
        (IDLE, "idle bank", true),
    ];
    for (fill, label, shown) in legend {
        if !shown {
            continue;
        }
        svg.rect(x, y - 12, 16, 16, fill, GREY, None);
        svg.text(x + 22, y + 1, 12, "start", &plain, label);
        x += 40 + 7 * label.chars().count() as u32;
    }
    if cells().any(|c| c.lanes().len() > 1) {
        let note = if cells().any(Cell::is_multi_word) {
            "\u{d7}n: n lanes served by the bank (two words of one 64-bit row)"
        } else {
            "\u{d7}n: n lanes served by the bank"
        };
        svg.text(x, y + 1, 12, "start", &plain, note);
    }
    svg.finish()
}

fn draw_cell(svg: &mut Svg, x: u32, y: u32, cell: &Cell, bank: usize, wavefront: u32) {
    let fill = if cell.is_idle() {
        IDLE
    } else if cell.conflict {
        CONFLICT
    } else if cell.collision {
        COLLISION
    } else if cell.is_shared() {
        SHARED
    } else {
        SERVED
    };
    let tip = (!cell.is_idle()).then(|| {
        let words: Vec<String> = cell
            .words
            .iter()
            .map(|w| format!("word {} to lane(s) {}", w.word, w.lanes))
            .collect();
        let what = if cell.collision {
            " (write collision: one write lands, which one is undefined)"
        } else if cell.conflict {
            " (bank conflict: the bank is busy in another wavefront of this phase)"
        } else {
            ""
        };
        format!(
            "bank {bank}, wavefront {wavefront}: {}{what}",
            words.join("; ")
        )
    });
    svg.rect(x, y, CELL_W, CELL_H, fill, "#ffffff", tip.as_deref());
    let Some(lane) = cell.lane() else { return };
    let extra = cell.lanes().len();
    // With a badge in the top right corner, the lane moves to the bottom left.
    let (lane_x, lane_y, size) = if extra > 1 {
        (x + CELL_W / 2 - 4, y + CELL_H - 6, 12)
    } else {
        (x + CELL_W / 2, y + CELL_H / 2 + 5, 13)
    };
    svg.text(
        lane_x,
        lane_y,
        size,
        "middle",
        &format!(r#"fill="{INK}""#),
        &lane.to_string(),
    );
    if extra > 1 {
        svg.text(
            x + CELL_W - 2,
            y + 9,
            8,
            "end",
            &format!(r#"fill="{INK}""#),
            &format!("\u{d7}{extra}"),
        );
    }
    // The same marks as the text diagram, so that a grey-scale print reads too.
    let marks = cell.marks();
    if !marks.is_empty() {
        svg.text(
            x + 2,
            y + 9,
            9,
            "start",
            &format!(r#"fill="{INK}""#),
            &marks,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every opened element is closed, in order: enough to catch a writer bug
    /// that would make browsers refuse the file.
    fn well_formed(svg: &str) -> bool {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let end = match rest[start..].find('>') {
                Some(end) => start + end,
                None => return false,
            };
            let tag = &rest[start + 1..end];
            rest = &rest[end + 1..];
            if tag.starts_with('?') || tag.ends_with('/') {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                if open.pop() != Some(name) {
                    return false;
                }
            } else {
                open.push(tag.split_whitespace().next().unwrap_or(""));
            }
        }
        open.is_empty()
    }

    #[test]
    fn escapes_and_nests() {
        assert_eq!(
            escape(r#"a<b & "c">'d'"#),
            "a&lt;b &amp; &quot;c&quot;&gt;&apos;d&apos;"
        );
        let mut svg = Svg::new(10, 10);
        svg.rect(0, 0, 1, 1, IDLE, GREY, Some("x < y"));
        svg.text(0, 0, 10, "start", "", "lane<16 ? 4 : -");
        let text = svg.finish();
        assert!(well_formed(&text), "{text}");
        assert!(text.contains("lane&lt;16 ? 4 : -"));
    }

    #[test]
    fn a_real_diagram_is_well_formed() {
        use smem_model::{BankConfig, ComputeCapability, Op, WarpRequest};
        let request = WarpRequest::from_fn(Op::Load, 4, |lane| {
            Some(4 * (lane.get() % 8) + 128 * (lane.get() / 16))
        })
        .unwrap();
        let partition = BankConfig::new(ComputeCapability::Sm90)
            .partition(&request)
            .unwrap();
        let text = render(&super::super::diagram::grid(&partition), "t <1>", "s & t");
        assert!(well_formed(&text), "{text}");
    }
}
