//! Plain-text tables with aligned columns, for every subcommand's output.
//!
//! Columns are as wide as their widest cell and separated by two spaces; the
//! header is underlined with dashes. Cells are plain text (no colour codes), so
//! widths are character counts.

/// How a column's cells are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text: names, descriptions.
    Left,
    /// Numbers.
    Right,
}

/// A table being filled row by row.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles and alignments.
    pub fn new(header: &[(&str, Align)]) -> Table {
        Table {
            header: header
                .iter()
                .map(|&(title, align)| (title.to_owned(), align))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are blank, extra cells are dropped.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut row: Vec<String> = cells.into_iter().map(Into::into).collect();
        row.resize(self.header.len(), String::new());
        self.rows.push(row);
    }

    /// The table as JSON: one object a row, keyed by the column titles (a title
    /// used twice gets ` 2` after it). Cells that are whole numbers are numbers,
    /// blank cells `null`, the others strings as printed.
    pub fn to_json(&self) -> serde_json::Value {
        let mut keys: Vec<String> = Vec::new();
        for (title, _) in &self.header {
            let mut key = title.clone();
            let mut n = 2;
            while keys.contains(&key) {
                key = format!("{title} {n}");
                n += 1;
            }
            keys.push(key);
        }
        let rows = self
            .rows
            .iter()
            .map(|row| {
                let object = keys
                    .iter()
                    .zip(row)
                    .map(|(key, cell)| {
                        let value = if cell.is_empty() {
                            serde_json::Value::Null
                        } else if let Ok(n) = cell.parse::<u64>() {
                            n.into()
                        } else {
                            cell.clone().into()
                        };
                        (key.clone(), value)
                    })
                    .collect();
                serde_json::Value::Object(object)
            })
            .collect();
        serde_json::Value::Array(rows)
    }

    /// The table as text, each line indented by `indent` spaces and ending in a
    /// newline, with no trailing spaces.
    pub fn render(&self, indent: usize) -> String {
        let mut widths: Vec<usize> = self
            .header
            .iter()
            .map(|(title, _)| title.chars().count())
            .collect();
        for row in &self.rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let pad = " ".repeat(indent);
        let mut out = String::new();
        let line = |cells: &mut dyn Iterator<Item = (&str, Align)>, out: &mut String| {
            let mut text = pad.clone();
            for (i, ((cell, align), width)) in cells.zip(&widths).enumerate() {
                if i > 0 {
                    text.push_str("  ");
                }
                let fill = width - cell.chars().count();
                match align {
                    Align::Left => {
                        text.push_str(cell);
                        text.push_str(&" ".repeat(fill));
                    }
                    Align::Right => {
                        text.push_str(&" ".repeat(fill));
                        text.push_str(cell);
                    }
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(
            &mut self.header.iter().map(|(t, a)| (t.as_str(), *a)),
            &mut out,
        );
        line(
            &mut widths
                .iter()
                .zip(&self.header)
                .map(|(&w, (_, a))| (&DASHES[..w.min(DASHES.len())], *a)),
            &mut out,
        );
        for row in &self.rows {
            line(
                &mut row
                    .iter()
                    .zip(&self.header)
                    .map(|(cell, (_, a))| (cell.as_str(), *a)),
                &mut out,
            );
        }
        out
    }
}

/// Enough dashes to underline any column title or cell.
const DASHES: &str = "----------------------------------------------------------------------------------------------------";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_and_lines_have_no_trailing_spaces() {
        let mut table = Table::new(&[("name", Align::Left), ("n", Align::Right)]);
        table.row(["a", "1"]);
        table.row(["long name", "100"]);
        table.row(["blank"]);
        assert_eq!(
            table.render(2),
            "  name         n\n  ---------  ---\n  a            1\n  long name  100\n  blank\n"
        );
    }
}
