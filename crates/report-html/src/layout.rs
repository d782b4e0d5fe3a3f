//! Places the nodes of a layered graph: columns by layer (a stage, a
//! depth), rows in the order the nodes come within their column. Only
//! coordinates: the layers themselves come from the engine.

/// Width of a node box.
pub const NODE_W: u32 = 190;
/// Height of a node box.
pub const NODE_H: u32 = 24;
/// Horizontal gap between columns.
pub const GAP_X: u32 = 60;
/// Vertical gap between rows.
pub const GAP_Y: u32 = 8;
/// Space above the first row (column headings).
pub const TOP: u32 = 30;
/// Space left of the first column.
pub const LEFT: u32 = 10;

/// Where each node goes, and the picture's size.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Top-left corner of each node, in node order.
    pub at: Vec<(u32, u32)>,
    /// Width and height of the whole picture.
    pub size: (u32, u32),
    /// Columns (one past the greatest layer).
    pub columns: u32,
}

/// The x of column `c`.
pub fn column_x(c: u32) -> u32 {
    LEFT + c * (NODE_W + GAP_X)
}

/// Lays out nodes of the given layers, at least `min_columns` columns.
pub fn layered(layers: &[u32], min_columns: u32) -> Layout {
    let columns = layers
        .iter()
        .map(|l| l.saturating_add(1))
        .max()
        .unwrap_or(0)
        .max(min_columns);
    let mut rows = vec![0u32; columns as usize];
    let at: Vec<(u32, u32)> = layers
        .iter()
        .map(|&l| {
            let r = &mut rows[l as usize];
            let y = TOP + *r * (NODE_H + GAP_Y);
            *r += 1;
            (column_x(l), y)
        })
        .collect();
    let tallest = rows.iter().copied().max().unwrap_or(0);
    Layout {
        at,
        size: (
            column_x(columns).max(LEFT + NODE_W),
            TOP + tallest * (NODE_H + GAP_Y) + GAP_Y,
        ),
        columns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes of one layer stack down their column; columns step right.
    #[test]
    fn stacks_by_layer() {
        let l = layered(&[0, 1, 0, 2], 1);
        assert_eq!(l.columns, 3);
        assert_eq!(l.at[0], (LEFT, TOP));
        assert_eq!(l.at[2], (LEFT, TOP + NODE_H + GAP_Y));
        assert_eq!(l.at[1].0, LEFT + NODE_W + GAP_X);
        assert_eq!(l.at[3].0, LEFT + 2 * (NODE_W + GAP_X));
        assert_eq!(l.size.1, TOP + 2 * (NODE_H + GAP_Y) + GAP_Y);
        assert_eq!(layered(&[], 4).columns, 4);
    }
}
