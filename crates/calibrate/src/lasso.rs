//! Lasso regression by cyclic coordinate descent on the Gram matrix, with
//! scikit-learn's objective: `1/(2n) |y - Xw - b|^2 + alpha |w|_1`, the
//! intercept `b` unpenalised (the columns and `y` are centred first).
//! Working from `X^T X / n` makes every sweep cost `k^2` whatever the row
//! count, so cross-validation over many penalties stays cheap.

use nalgebra::{DMatrix, DVector};

/// A Lasso problem reduced to its Gram matrix.
#[derive(Debug, Clone)]
pub struct Gram {
    /// `Xc^T Xc / n` (centred columns).
    g: DMatrix<f64>,
    /// `Xc^T yc / n`.
    c: DVector<f64>,
    /// Column means.
    x_mean: Vec<f64>,
    /// Mean of `y`.
    y_mean: f64,
}

/// A fitted Lasso.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Weights, one per column.
    pub coef: Vec<f64>,
    /// Intercept.
    pub intercept: f64,
    /// Sweeps used.
    pub sweeps: usize,
}

/// Sweeps after which coordinate descent stops even if not converged.
pub const MAX_SWEEPS: usize = 100_000;

fn soft(v: f64, t: f64) -> f64 {
    if v > t {
        v - t
    } else if v < -t {
        v + t
    } else {
        0.0
    }
}

impl Gram {
    /// The Gram matrix of `x` (rows x columns) and `y`.
    pub fn new(x: &DMatrix<f64>, y: &[f64]) -> Gram {
        let (n, k) = x.shape();
        let nf = n.max(1) as f64;
        let x_mean: Vec<f64> = (0..k).map(|j| x.column(j).sum() / nf).collect();
        let y_mean = y.iter().sum::<f64>() / nf;
        let xc = DMatrix::from_fn(n, k, |i, j| x[(i, j)] - x_mean[j]);
        let yc = DVector::from_iterator(n, y.iter().map(|v| v - y_mean));
        Gram {
            g: xc.tr_mul(&xc) / nf,
            c: xc.tr_mul(&yc) / nf,
            x_mean,
            y_mean,
        }
    }

    /// The smallest penalty at which every weight is zero.
    pub fn alpha_max(&self) -> f64 {
        self.c.amax()
    }

    /// The first `k` columns' problem (the leading block).
    pub fn leading(&self, k: usize) -> Gram {
        let k = k.min(self.c.len());
        Gram {
            g: self.g.view((0, 0), (k, k)).into_owned(),
            c: self.c.rows(0, k).into_owned(),
            x_mean: self.x_mean[..k].to_vec(),
            y_mean: self.y_mean,
        }
    }

    /// Minimises the objective at `alpha`, starting from `start` (warm
    /// start; zeros when `None`), until no weight moves by more than `tol`
    /// times the largest weight in a sweep.
    pub fn solve(&self, alpha: f64, start: Option<&[f64]>, tol: f64) -> Fit {
        let k = self.c.len();
        let mut w: Vec<f64> = match start {
            Some(s) if s.len() == k => s.to_vec(),
            _ => vec![0.0; k],
        };
        let mut sweeps = 0;
        while sweeps < MAX_SWEEPS {
            sweeps += 1;
            let (mut moved, mut largest) = (0.0f64, 0.0f64);
            for j in 0..k {
                let gjj = self.g[(j, j)];
                let old = w[j];
                let new = if gjj > 0.0 {
                    let mut rho = self.c[j];
                    for (l, wl) in w.iter().enumerate() {
                        if l != j {
                            rho -= self.g[(j, l)] * wl;
                        }
                    }
                    soft(rho, alpha) / gjj
                } else {
                    0.0
                };
                w[j] = new;
                moved = moved.max((new - old).abs());
                largest = largest.max(new.abs());
            }
            if moved <= tol * largest.max(f64::MIN_POSITIVE) {
                break;
            }
        }
        let intercept = self.y_mean - w.iter().zip(&self.x_mean).map(|(a, b)| a * b).sum::<f64>();
        Fit {
            coef: w,
            intercept,
            sweeps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthogonal_design_is_soft_thresholding() {
        // Two centred orthogonal columns: w_j = soft(c_j, alpha) / g_jj.
        let x = DMatrix::from_row_slice(4, 2, &[1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, -1.0]);
        let y = [3.0, 1.0, 2.0, 0.0];
        let g = Gram::new(&x, &y);
        let f = g.solve(0.25, None, 1e-15);
        // c = X^T (y - 1.5) / 4 = [1.0, 0.5]; g_jj = 1.
        assert!((f.coef[0] - 0.75).abs() < 1e-15 && (f.coef[1] - 0.25).abs() < 1e-15);
        assert!((f.intercept - 1.5).abs() < 1e-15);
        assert!(f.sweeps <= 2);
        assert!(g
            .solve(g.alpha_max(), None, 1e-15)
            .coef
            .iter()
            .all(|w| *w == 0.0));
        assert_eq!(g.leading(1).solve(0.25, None, 1e-15).coef, vec![0.75]);
    }
}
