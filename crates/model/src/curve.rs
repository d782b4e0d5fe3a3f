//! Fitted functions of one variable (docs/models.md, "Component models"):
//! the candidate families of the component-model method and piecewise
//! curves made of them. `p4cost fit --kind component` chooses them; this
//! module only evaluates them, so a model file is all a prediction needs.

use serde::{Deserialize, Serialize};

/// A family of functions of `x`. `t = (x - x0) / scale` is the piece's
/// normalised variable (so coefficients stay well conditioned whatever
/// the unit); `params` are the family's coefficients in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// `sum(p[i] * t^i)`, i = 0..=degree, degree 0-5 (`poly0` .. `poly5`).
    #[serde(rename = "poly")]
    Poly,
    /// `p[0] + p[1] * ln(x)` (x > 0).
    Log,
    /// `p[0] + p[1] * exp(p[2] * t)` (growth or decay).
    Exp,
    /// `p[0] + p[1] / (t + p[2])` (the hyperbola of a table outgrowing a
    /// cache; the pole lies outside the fitted range).
    Reciprocal,
}

impl Family {
    /// Name as shown to people (`poly2`, `log`, ...).
    pub fn label(self, params: usize) -> String {
        match self {
            Family::Poly => format!("poly{}", params.saturating_sub(1)),
            Family::Log => "log".into(),
            Family::Exp => "exp".into(),
            Family::Reciprocal => "reciprocal".into(),
        }
    }
}

/// One piece of a curve: a family on `[from, to]` (the measured `x` it was
/// fitted on; a curve's first piece also serves below `from`, its last
/// above `to`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Piece {
    /// The family.
    pub family: Family,
    /// Its coefficients (`t` form, see [`Family`]).
    pub params: Vec<f64>,
    /// Smallest measured `x` of the piece.
    pub from: f64,
    /// Largest measured `x` of the piece.
    pub to: f64,
    /// `x0` of the normalised variable.
    pub x0: f64,
    /// `scale` of the normalised variable (positive).
    pub scale: f64,
}

impl Piece {
    /// The piece's value at `x`. Outside a family's domain (`ln` of a
    /// non-positive `x`, the reciprocal's pole) the value is not finite;
    /// callers check [`f64::is_finite`].
    pub fn eval(&self, x: f64) -> f64 {
        let t = (x - self.x0) / self.scale;
        let p = |i: usize| self.params.get(i).copied().unwrap_or(0.0);
        match self.family {
            // Horner, highest power first.
            Family::Poly => self.params.iter().rev().fold(0.0, |acc, c| acc * t + c),
            Family::Log if x > 0.0 => p(0) + p(1) * x.ln(),
            Family::Log => f64::NAN,
            Family::Exp => p(0) + p(1) * (p(2) * t).exp(),
            Family::Reciprocal => p(0) + p(1) / (t + p(2)),
        }
    }

    /// Coefficients the family has (its rank in the method's ordering).
    pub fn rank(&self) -> usize {
        self.params.len()
    }

    /// Checks the coefficient count against the family.
    pub fn check(&self) -> Result<(), String> {
        let ok = match self.family {
            Family::Poly => (1..=6).contains(&self.params.len()),
            Family::Log => self.params.len() == 2,
            Family::Exp | Family::Reciprocal => self.params.len() == 3,
        };
        if !ok {
            return Err(format!(
                "a {:?} piece has {} coefficients",
                self.family,
                self.params.len()
            ));
        }
        let sound = self.scale.is_finite()
            && self.scale > 0.0
            && self.params.iter().all(|p| p.is_finite())
            && self.from.is_finite()
            && self.to.is_finite()
            && self.from <= self.to;
        if !sound {
            return Err(
                "a piece needs finite coefficients, a positive scale and from <= to".into(),
            );
        }
        Ok(())
    }
}

/// A fitted curve: one or more pieces, split at breakpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Curve {
    /// Pieces in increasing `x`; piece `i` serves `x <= pieces[i].to`
    /// (the last one everything above).
    pub pieces: Vec<Piece>,
    /// sMAPE of the fit on its own points, percent.
    pub smape_percent: f64,
    /// Points it was fitted on.
    pub points: usize,
}

impl Curve {
    /// The curve's value at `x`.
    pub fn eval(&self, x: f64) -> f64 {
        let piece = self
            .pieces
            .iter()
            .find(|p| x <= p.to)
            .or(self.pieces.last());
        piece.map_or(f64::NAN, |p| p.eval(x))
    }

    /// The measured range `[first from, last to]`.
    pub fn range(&self) -> [f64; 2] {
        [
            self.pieces.first().map_or(0.0, |p| p.from),
            self.pieces.last().map_or(0.0, |p| p.to),
        ]
    }

    /// The breakpoints (the `to` of every piece but the last).
    pub fn breakpoints(&self) -> Vec<f64> {
        let n = self.pieces.len().saturating_sub(1);
        self.pieces[..n].iter().map(|p| p.to).collect()
    }

    /// `poly1`, or `poly1 | x > 5: poly1` for a piecewise curve.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                out.push_str(&format!(" | x > {}: ", self.pieces[i - 1].to));
            }
            out.push_str(&p.family.label(p.params.len()));
        }
        out
    }

    /// Checks every piece and their order.
    pub fn check(&self) -> Result<(), String> {
        if self.pieces.is_empty() {
            return Err("a curve needs at least one piece".into());
        }
        for p in &self.pieces {
            p.check()?;
        }
        if self.pieces.windows(2).any(|w| w[0].to >= w[1].from) {
            return Err("curve pieces must be in increasing x without overlap".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(family: Family, params: &[f64], from: f64, to: f64) -> Piece {
        Piece {
            family,
            params: params.to_vec(),
            from,
            to,
            x0: from,
            scale: (to - from).max(1.0),
        }
    }

    #[test]
    fn families_evaluate_their_formulas() {
        // t = (x - 1) / 9 on [1, 10].
        let p = piece(Family::Poly, &[1.0, 2.0, 3.0], 1.0, 10.0);
        let t: f64 = (4.0 - 1.0) / 9.0;
        assert!((p.eval(4.0) - (1.0 + 2.0 * t + 3.0 * t * t)).abs() < 1e-12);
        let l = piece(Family::Log, &[258.16, 9.13], 1.0, 10.0);
        assert!((l.eval(90.0) - (258.16 + 9.13 * 90f64.ln())).abs() < 1e-12);
        assert!(l.eval(0.0).is_nan());
        let e = piece(Family::Exp, &[-3.0, 4.0, 0.5], 1.0, 10.0);
        assert!((e.eval(10.0) - (-3.0 + 4.0 * 0.5f64.exp())).abs() < 1e-12);
        let r = piece(Family::Reciprocal, &[7.0, 2.0, 0.5], 1.0, 10.0);
        assert!((r.eval(1.0) - 11.0).abs() < 1e-12);
        assert_eq!(p.rank(), 3);
        assert_eq!(Family::Poly.label(3), "poly2");
    }

    #[test]
    fn pieces_split_at_breakpoints() {
        let c = Curve {
            pieces: vec![
                piece(Family::Poly, &[0.0, 9.0], 1.0, 5.0),
                piece(Family::Poly, &[100.0], 6.0, 10.0),
            ],
            smape_percent: 0.0,
            points: 10,
        };
        assert!(c.check().is_ok());
        assert_eq!(c.breakpoints(), vec![5.0]);
        assert!((c.eval(5.0) - 9.0).abs() < 1e-12);
        assert_eq!(c.eval(5.5), 100.0);
        assert_eq!(c.eval(50.0), 100.0);
        assert!((c.eval(0.0) - -2.25).abs() < 1e-12);
        assert_eq!(c.describe(), "poly1 | x > 5: poly0");
        assert_eq!(c.range(), [1.0, 10.0]);
        let mut bad = c.clone();
        bad.pieces.swap(0, 1);
        assert!(bad.check().is_err());
    }
}
