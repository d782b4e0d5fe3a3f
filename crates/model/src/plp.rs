//! The PCA-Lasso-polynomial (PLP) model (docs/models.md, "PLP models"):
//! for each of two parts, the parser (with deparser and the packet-size
//! base) and the control, the inputs are expanded to degree-2 polynomial
//! features, standardised, projected on principal components and weighed
//! by a Lasso regression. A model file stores every number of that
//! pipeline; `p4cost fit --kind plp` computes them. Evaluation is plain
//! arithmetic: no Python, no fitting library at run time.

use serde::{Deserialize, Serialize};

use crate::features::{Features, TableMatch};

/// The parser part's inputs, in column order.
pub const PARSER_INPUTS: [&str; 3] = ["packet_size", "states", "header_bytes"];

/// The control part's inputs, in column order.
pub const CONTROL_INPUTS: [&str; 6] = [
    "exact_tables",
    "lpm_tables",
    "ternary_tables",
    "keys",
    "key_bits",
    "entries",
];

/// The parser inputs of a class: packet size, counted states and the
/// bytes they extract.
pub fn parser_inputs(f: &Features) -> [f64; 3] {
    [
        f64::from(f.packet_size),
        f.states() as f64,
        f.header_bytes() as f64,
    ]
}

/// The control inputs of a class: tables by match kind (keyless tables
/// count as exact: they use no TCAM), key fields, key bits and entries,
/// each summed over the tables. Unknown entries count 0 (the caller warns).
pub fn control_inputs(f: &Features) -> [f64; 6] {
    let count = |k: &[TableMatch]| f.tables.iter().filter(|t| k.contains(&t.kind)).count() as f64;
    [
        count(&[TableMatch::Exact, TableMatch::Keyless]),
        count(&[TableMatch::Lpm]),
        count(&[TableMatch::Ternary]),
        f.tables.iter().map(|t| t.key_bits.len()).sum::<usize>() as f64,
        f.tables.iter().map(|t| t.total_key_bits()).sum::<u64>() as f64,
        f.tables.iter().filter_map(|t| t.entries).sum::<u64>() as f64,
    ]
}

/// Degree-2 polynomial features without the constant, in scikit-learn's
/// `PolynomialFeatures(degree=2, include_bias=False)` order: `x_0 .. x_n`,
/// then `x_i * x_j` for `i <= j` in row-major order.
pub fn poly2(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut out = Vec::with_capacity(n + n * (n + 1) / 2);
    out.extend_from_slice(x);
    for i in 0..n {
        for j in i..n {
            out.push(x[i] * x[j]);
        }
    }
    out
}

/// One fitted part: `y = intercept + coef . (components . ((poly2(x) - mean) / scale - pca_mean))`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlpPart {
    /// Input names, in column order ([`PARSER_INPUTS`] or [`CONTROL_INPUTS`]).
    pub inputs: Vec<String>,
    /// Mean of each polynomial feature (the standardiser).
    pub mean: Vec<f64>,
    /// Standard deviation of each polynomial feature (1 where constant).
    pub scale: Vec<f64>,
    /// Mean of the standardised features the components were found on.
    pub pca_mean: Vec<f64>,
    /// Principal components, one row per component (unit vectors over the
    /// polynomial features, the largest loading of each positive).
    pub components: Vec<Vec<f64>>,
    /// Lasso weight of each component.
    pub coef: Vec<f64>,
    /// Lasso intercept.
    pub intercept: f64,
    /// The Lasso penalty chosen by cross-validation.
    pub alpha: f64,
    /// Cross-validated root mean square error of the chosen setting, ns.
    pub cv_rmse_ns: f64,
}

impl PlpPart {
    /// The part's value for raw inputs `x`.
    pub fn eval(&self, x: &[f64]) -> f64 {
        let z: Vec<f64> = poly2(x)
            .iter()
            .zip(self.mean.iter().zip(&self.scale))
            .zip(&self.pca_mean)
            .map(|((v, (m, s)), pm)| (v - m) / s - pm)
            .collect();
        self.intercept
            + self
                .components
                .iter()
                .zip(&self.coef)
                .map(|(c, w)| w * c.iter().zip(&z).map(|(a, b)| a * b).sum::<f64>())
                .sum::<f64>()
    }

    /// Checks that the dimensions agree.
    pub fn check(&self, want_inputs: &[&str]) -> Result<(), String> {
        if self
            .inputs
            .iter()
            .map(String::as_str)
            .ne(want_inputs.iter().copied())
        {
            return Err(format!(
                "plp inputs must be {}, found {}",
                want_inputs.join(", "),
                self.inputs.join(", ")
            ));
        }
        let m = poly2(&vec![0.0; want_inputs.len()]).len();
        if self.mean.len() != m || self.scale.len() != m || self.pca_mean.len() != m {
            return Err(format!(
                "plp: mean, scale and pca_mean need {m} values each"
            ));
        }
        if self.components.is_empty()
            || self.components.len() > m
            || self.components.iter().any(|c| c.len() != m)
            || self.coef.len() != self.components.len()
        {
            return Err(format!(
                "plp: 1 to {m} components of {m} loadings, one coefficient each"
            ));
        }
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !finite(&self.mean)
            || !finite(&self.pca_mean)
            || !self.scale.iter().all(|s| s.is_finite() && *s > 0.0)
            || !self.components.iter().all(|c| finite(c))
            || !finite(&self.coef)
            || !self.intercept.is_finite()
        {
            return Err("plp: every number must be finite and every scale positive".into());
        }
        Ok(())
    }
}

/// The `plp` section of a model file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlpSpec {
    /// Parser + deparser + packet-size base, fitted on rows without tables.
    pub parser: PlpPart,
    /// The control, fitted on what the parser part leaves of rows with
    /// tables; `None` when no row had a table.
    #[serde(default)]
    pub control: Option<PlpPart>,
}

impl PlpSpec {
    /// (base, parser, control) ns of a class: the base is the parser part
    /// with no state, so the three add up to the prediction.
    pub fn terms(&self, f: &Features) -> (f64, f64, f64) {
        let x = parser_inputs(f);
        let base = self.parser.eval(&[x[0], 0.0, 0.0]);
        let parser = self.parser.eval(&x) - base;
        let control = match &self.control {
            Some(c) if !f.tables.is_empty() => c.eval(&control_inputs(f)),
            _ => 0.0,
        };
        (base, parser, control)
    }

    /// Checks both parts.
    pub fn check(&self) -> Result<(), String> {
        self.parser.check(&PARSER_INPUTS)?;
        if let Some(c) = &self.control {
            c.check(&CONTROL_INPUTS)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poly2_is_in_scikit_learn_order() {
        assert_eq!(
            poly2(&[2.0, 3.0, 5.0]),
            vec![2.0, 3.0, 5.0, 4.0, 6.0, 10.0, 9.0, 15.0, 25.0]
        );
    }

    #[test]
    fn a_part_is_the_pipeline_arithmetic() {
        // One input: poly2 = [x, x^2]; identity components.
        let part = PlpPart {
            inputs: vec!["a".into()],
            mean: vec![1.0, 2.0],
            scale: vec![2.0, 4.0],
            pca_mean: vec![0.5, 0.0],
            components: vec![vec![1.0, 0.0], vec![0.0, 1.0]],
            coef: vec![3.0, -1.0],
            intercept: 10.0,
            alpha: 0.1,
            cv_rmse_ns: 0.0,
        };
        // x = 3: z = [(3-1)/2 - 0.5, (9-2)/4] = [0.5, 1.75].
        assert!((part.eval(&[3.0]) - (10.0 + 1.5 - 1.75)).abs() < 1e-12);
        assert!(part.check(&["a"]).is_ok());
        assert!(part.check(&["b"]).is_err());
        let mut bad = part.clone();
        bad.scale[0] = 0.0;
        assert!(bad.check(&["a"]).unwrap_err().contains("positive"));
    }

    #[test]
    fn inputs_of_a_class() {
        let f = Features {
            packet_size: 300,
            state_bytes: vec![20, 8],
            tables: Features::parse_tables("exact:32+16:1000;lpm:32:;ternary:8:5;keyless::")
                .unwrap(),
        };
        assert_eq!(parser_inputs(&f), [300.0, 2.0, 28.0]);
        assert_eq!(control_inputs(&f), [2.0, 1.0, 1.0, 4.0, 88.0, 1005.0]);
    }
}
