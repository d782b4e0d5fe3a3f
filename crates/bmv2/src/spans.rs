//! `source_info` objects to [`Span`]s.

use p4cost_ir::{FileId, Program, Span};

use crate::access::J;
use crate::error::Result;

/// Turns `source_info` into spans; entries without one point at the start
/// of the JSON file itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spans {
    /// The JSON file (always `files[0]`).
    pub json: FileId,
}

impl Spans {
    /// The span of an object's `source_info` member (`filename`, `line`,
    /// 0-based `column`); the JSON file's start when it has none.
    pub fn of(&mut self, prog: &mut Program, obj: &J) -> Result<Span> {
        let Some(si) = obj.opt("source_info")? else {
            return Ok(Span::file_start(self.json));
        };
        let file = prog.add_file(si.key_str("filename")?);
        let line = match si.opt("line")? {
            Some(l) => l.u32()?.max(1),
            None => 1,
        };
        let col = match si.opt("column")? {
            Some(c) => c.u32()?.saturating_add(1),
            None => 1,
        };
        Ok(Span {
            file,
            lo: 0,
            hi: 0,
            line,
            col,
        })
    }

    /// The start of the JSON file.
    pub fn json_start(&self) -> Span {
        Span::file_start(self.json)
    }
}
