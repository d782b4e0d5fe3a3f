//! The timed edits of switch_p4_16.p4 and fabric_tna.p4, shared by
//! `tests/lsp_latency.rs` (timed over stdio), `tests/editor_reuse.rs` (answers equal a fresh
//! analysis's) and `examples/edit_replay.rs` (the profiling driver), so all
//! three replay the same keystrokes. Included with `#[path]`.

/// `line` with the number after its `size = ` multiplied by `times` (or
/// divided when `times` is 0: by 2).
pub fn scale_size(line: &str, times: u64) -> Option<String> {
    let at = line.find("size = ")? + "size = ".len();
    let digits = line[at..].chars().take_while(char::is_ascii_digit).count();
    let n: u64 = line[at..at + digits].parse().ok()?;
    let m = if times == 0 { n / 2 } else { n * times };
    Some(format!("{}{m}{}", &line[..at], &line[at + digits..]))
}

/// Edit `k` of `text`, by `k % 4`: a table's size doubled, a comment added
/// to a statement, that size halved back, that comment deleted (so half
/// the edits make the text longer, half shorter, as typing and deleting
/// do); the tables and statements taken in turn over the whole file.
pub fn switch_edit(k: usize, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let sized: Vec<usize> = (0..lines.len())
        .filter(|&i| scale_size(&lines[i], 2).is_some())
        .collect();
    let statements: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(';') && !lines[i].starts_with('#'))
        .collect();
    let round = k / 4;
    let table = sized[(round * 37) % sized.len()];
    let statement = statements[(round * 997) % statements.len()];
    match k % 4 {
        0 => lines[table] = scale_size(&lines[table], 2).unwrap_or_default(),
        1 => lines[statement].push_str(" // reviewed"),
        2 => lines[table] = scale_size(&lines[table], 0).unwrap_or_default(),
        _ => {
            let cut = lines[statement].trim_end_matches(" // reviewed").len();
            lines[statement].truncate(cut);
        }
    }
    lines.join("\n") + "\n"
}

/// Edit `k` of fabric_tna.p4, by `k % 4`: a control's application in
/// the ingress or egress apply block commented out, a comment added to
/// another, the application put back, the comment deleted.
pub fn fabric_edit(k: usize, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let applies: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(".apply(") && lines[i].contains(';'))
        .collect();
    let round = k / 4;
    let off = applies[round % applies.len()];
    let noted = applies[(round * 7 + 3) % applies.len()];
    match k % 4 {
        0 => lines[off] = format!("//{}", lines[off]),
        1 => lines[noted].push_str(" // reviewed"),
        2 => lines[off] = lines[off].trim_start_matches("//").to_string(),
        _ => {
            let cut = lines[noted].trim_end_matches(" // reviewed").len();
            lines[noted].truncate(cut);
        }
    }
    lines.join("\n") + "\n"
}
