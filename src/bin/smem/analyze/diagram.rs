//! The bank diagram of a partition: banks across, wavefronts down, and in each
//! cell what the bank delivers in that wavefront. One model, two drawings: text
//! for the terminal (here) and SVG (`svg.rs`).

use std::fmt::Write as _;

use smem_model::{LaneSet, Partition, WordAccess};

use crate::output::{styled, BAD, GOOD, NOTE, WARN};
use anstyle::Style;

/// What one bank does in one wavefront.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// The words the bank delivers (several only on 3.x in four-byte mode,
    /// where words `i` and `i + 32` share a 64-bit bank row).
    pub words: Vec<WordAccess>,
    /// The bank is busy in another wavefront of the same phase too: the reason
    /// that phase takes more than one wavefront.
    pub conflict: bool,
    /// A store's lanes write the same address in this word: one write lands
    /// and which one is undefined (a write collision, not a broadcast).
    pub collision: bool,
}

impl Cell {
    /// The bank delivers nothing.
    pub fn is_idle(&self) -> bool {
        self.words.is_empty()
    }

    /// Every lane served by this bank in this wavefront.
    pub fn lanes(&self) -> LaneSet {
        self.words
            .iter()
            .fold(LaneSet::EMPTY, |all, word| all.union(word.lanes))
    }

    /// The lane shown in the cell: the lowest one served.
    pub fn lane(&self) -> Option<u32> {
        self.lanes().first().map(|lane| lane.get())
    }

    /// Some word is read by several lanes (a broadcast), or written by several
    /// lanes at different bytes; a write collision is not counted here.
    pub fn is_shared(&self) -> bool {
        !self.collision && self.words.iter().any(WordAccess::is_broadcast)
    }

    /// The marks under the cell, without colour: `!` conflict, `x` write
    /// collision, `*` shared word, `+` two words of one 64-bit bank row.
    pub fn marks(&self) -> String {
        let mut marks = String::new();
        if self.conflict {
            marks.push('!');
        }
        if self.collision {
            marks.push('x');
        } else if self.is_shared() {
            marks.push('*');
        }
        if self.is_multi_word() {
            marks.push('+');
        }
        marks
    }

    /// The bank delivers several words at once (a 64-bit Kepler bank row).
    pub fn is_multi_word(&self) -> bool {
        self.words.len() > 1
    }
}

/// One wavefront: its lanes, phase and one cell per bank.
#[derive(Debug, Clone)]
pub struct Row {
    /// The lanes served.
    pub lanes: LaneSet,
    /// The phase (lane group) it belongs to.
    pub phase: u32,
    /// The 4-byte part moved, on 1.x's split wide accesses (0 elsewhere).
    pub part: u32,
    /// One cell per bank, bank 0 first.
    pub cells: Vec<Cell>,
}

/// The whole diagram.
#[derive(Debug, Clone)]
pub struct Grid {
    /// The number of banks (columns).
    pub banks: usize,
    /// One row per wavefront, in the order served.
    pub rows: Vec<Row>,
    /// The request is served in more than one phase.
    pub phased: bool,
}

/// The diagram of `partition`.
pub fn grid(partition: &Partition) -> Grid {
    let banks = partition.config().bank_count() as usize;
    let request = partition.request();
    let collisions = request.write_collisions();
    let width = partition.config().bank_width().bytes();
    let mut rows: Vec<Row> = partition
        .transactions()
        .map(|transaction| {
            let mut cells = vec![Cell::default(); banks];
            for word in transaction.words() {
                let cell = &mut cells[word.bank.index()];
                // The word's lanes include two that store to one address.
                cell.collision |= collisions.iter().any(|c| {
                    c.address() / width == word.word && c.lanes().intersection(word.lanes).len() > 1
                });
                cell.words.push(word);
            }
            Row {
                lanes: transaction.lanes(),
                phase: transaction.phase(),
                part: transaction.part(),
                cells,
            }
        })
        .collect();
    // A bank busy in two wavefronts of one phase is what made the phase take
    // more than one.
    for bank in 0..banks {
        for i in 0..rows.len() {
            let busy_elsewhere = rows.iter().enumerate().any(|(j, other)| {
                j != i
                    && (other.phase, other.part) == (rows[i].phase, rows[i].part)
                    && !other.cells[bank].is_idle()
            });
            if busy_elsewhere && !rows[i].cells[bank].is_idle() {
                rows[i].cells[bank].conflict = true;
            }
        }
    }
    let phased = rows.iter().any(|row| row.phase != 0 || row.part != 0);
    Grid {
        banks,
        rows,
        phased,
    }
}

/// The lanes of a row as shown beside it: the set, or a count when the set is
/// too scattered to read at a glance.
pub fn lanes_label(lanes: LaneSet) -> String {
    let text = lanes.to_string();
    if lanes.is_empty() {
        "no lane".to_owned()
    } else if lanes.len() == 1 {
        format!("lane {text}")
    } else if text.len() <= 24 {
        format!("lanes {text}")
    } else {
        format!("{} lanes", lanes.len())
    }
}

/// The diagram as text: a header of bank numbers, one line per wavefront with
/// three characters per bank, and a legend. Under a row with marked cells a
/// line of marks reads without colour: `!` under a bank that conflicts, `x`
/// under a write collision, `*` under a word shared by several lanes, `+`
/// under a bank delivering two words. With colour, idle banks are dimmed,
/// shared words green, collisions yellow and conflicting banks red.
pub fn text(grid: &Grid) -> String {
    let mut out = String::new();
    let mut header = String::from("  wf ");
    for bank in 0..grid.banks {
        _ = write!(header, "{bank:>3}");
    }
    out.push_str(&styled(NOTE, header));
    out.push('\n');
    for (i, row) in grid.rows.iter().enumerate() {
        _ = write!(out, "{:>4} ", i + 1);
        for cell in &row.cells {
            let (text, style) = cell_text(cell);
            out.push_str(&styled(style, format!("{text:>3}")));
        }
        _ = write!(out, "  {}", lanes_label(row.lanes));
        if grid.phased {
            _ = write!(out, ", phase {}", row.phase);
            if row.part > 0 {
                _ = write!(out, ", part {}", row.part);
            }
        }
        out.push('\n');
        if row.cells.iter().any(|c| !c.marks().is_empty()) {
            let mut marks = String::from("     ");
            let last = row.cells.iter().rposition(|c| !c.marks().is_empty());
            for cell in &row.cells[..last.map_or(0, |i| i + 1)] {
                let (_, style) = cell_text(cell);
                marks.push_str(&styled(style, format!("{:>3}", cell.marks())));
            }
            _ = writeln!(out, "{marks}");
        }
    }
    let cells = || grid.rows.iter().flat_map(|r| &r.cells);
    let mut legend = vec!["N lane served".to_owned(), ". idle bank".to_owned()];
    if cells().any(|c| c.conflict) {
        legend.push(format!(
            "{} bank busy in several wavefronts of one phase (a conflict)",
            styled(BAD, "!")
        ));
    }
    if cells().any(|c| c.collision) {
        legend.push(format!(
            "{} write collision: lanes store to one address, one write lands",
            styled(WARN, "x")
        ));
    }
    if cells().any(Cell::is_shared) {
        legend.push(format!(
            "{} word shared by several lanes (lowest shown)",
            styled(GOOD, "*")
        ));
    }
    if cells().any(Cell::is_multi_word) {
        legend.push("+ two words of one 64-bit bank row".to_owned());
    }
    _ = writeln!(out, "  {}", legend.join("   "));
    out
}

/// A cell's text (the lowest lane served, or `.`) and its style.
fn cell_text(cell: &Cell) -> (String, Style) {
    let Some(lane) = cell.lane() else {
        return (".".to_owned(), NOTE);
    };
    let style = if cell.conflict {
        BAD
    } else if cell.collision {
        WARN
    } else if cell.is_shared() {
        GOOD
    } else {
        Style::new()
    };
    (lane.to_string(), style)
}
