//! Principal component analysis as scikit-learn's `PCA` computes it: the
//! columns are centred, the components are the right singular vectors of
//! the centred data in decreasing singular value, and each component's
//! sign is fixed so that its largest loading (by magnitude, the first on a
//! tie) is positive (`svd_flip` with `u_based_decision=False`).

use nalgebra::DMatrix;

/// A fitted PCA.
#[derive(Debug, Clone, PartialEq)]
pub struct Pca {
    /// Column means of the fitted data.
    pub mean: Vec<f64>,
    /// Components, one row each, in decreasing variance.
    pub components: Vec<Vec<f64>>,
    /// Variance along each component (`s^2 / (n - 1)`).
    pub explained_variance: Vec<f64>,
}

impl Pca {
    /// Fits up to `k` components to `x` (rows x columns); fewer when the
    /// data has fewer rows or columns.
    pub fn fit(x: &DMatrix<f64>, k: usize) -> Pca {
        let (n, m) = x.shape();
        let nf = n.max(1) as f64;
        let mean: Vec<f64> = (0..m).map(|j| x.column(j).sum() / nf).collect();
        let xc = DMatrix::from_fn(n, m, |i, j| x[(i, j)] - mean[j]);
        let svd = xc.svd(false, true);
        let Some(vt) = svd.v_t else {
            return Pca {
                mean,
                components: Vec::new(),
                explained_variance: Vec::new(),
            };
        };
        let s = svd.singular_values;
        let mut order: Vec<usize> = (0..s.len()).collect();
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
        let mut components = Vec::new();
        let mut explained_variance = Vec::new();
        for &i in order.iter().take(k) {
            let mut row: Vec<f64> = vt.row(i).iter().copied().collect();
            let mut big = 0;
            for (j, v) in row.iter().enumerate() {
                if v.abs() > row[big].abs() {
                    big = j;
                }
            }
            if row[big] < 0.0 {
                row.iter_mut().for_each(|v| *v = -*v);
            }
            components.push(row);
            explained_variance.push(s[i] * s[i] / (nf - 1.0).max(1.0));
        }
        Pca {
            mean,
            components,
            explained_variance,
        }
    }

    /// The scores of the rows of `x` on the first `k` components.
    pub fn transform(&self, x: &DMatrix<f64>, k: usize) -> DMatrix<f64> {
        let k = k.min(self.components.len());
        DMatrix::from_fn(x.nrows(), k, |i, c| {
            self.components[c]
                .iter()
                .enumerate()
                .map(|(j, v)| v * (x[(i, j)] - self.mean[j]))
                .sum()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_on_a_line_have_one_component() {
        // y = -2x: the direction (1, -2)/sqrt(5), flipped so that -2 is
        // positive.
        let x = DMatrix::from_row_slice(3, 2, &[0.0, 0.0, 1.0, -2.0, 2.0, -4.0]);
        let p = Pca::fit(&x, 2);
        let r = 5f64.sqrt();
        assert!((p.components[0][0] + 1.0 / r).abs() < 1e-12);
        assert!((p.components[0][1] - 2.0 / r).abs() < 1e-12);
        assert!(p.explained_variance[1] < 1e-20);
        let z = p.transform(&x, 1);
        assert!((z[(0, 0)] - r).abs() < 1e-12 && z[(1, 0)].abs() < 1e-12);
    }
}
