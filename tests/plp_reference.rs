//! p4cost's PLP pipeline against scikit-learn: the polynomial expansion,
//! the standardiser, PCA, the Lasso and the whole pipeline agree with the
//! numbers `tests/fixtures/plp/sklearn_reference.py` computed once with
//! scikit-learn (stored beside it) within 1e-6.

use nalgebra::DMatrix;
use p4cost_calibrate::lasso::Gram;
use p4cost_calibrate::pca::Pca;
use p4cost_calibrate::plp::{scaler, standardise};
use p4cost_model::plp::{poly2, PlpPart};
use serde_json::Value;

fn reference() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/plp/sklearn_reference.json"
    ))
    .expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn vector(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn matrix(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().expect("rows").iter().map(vector).collect()
}

fn to_dmatrix(rows: &[Vec<f64>]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), rows[0].len(), |i, j| rows[i][j])
}

#[track_caller]
fn close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-6 * w.abs().max(1.0),
            "{what}[{i}]: p4cost {g}, scikit-learn {w}"
        );
    }
}

struct Steps {
    x: Vec<Vec<f64>>,
    y: Vec<f64>,
    s: DMatrix<f64>,
    mean: Vec<f64>,
    scale: Vec<f64>,
    pca: Pca,
}

fn steps(r: &Value) -> Steps {
    let x = matrix(&r["X"]);
    let y = vector(&r["y"]);
    let p = to_dmatrix(&x.iter().map(|row| poly2(row)).collect::<Vec<_>>());
    let (mean, scale) = scaler(&p);
    let s = standardise(&p, &mean, &scale);
    let k = r["pipeline_components"].as_u64().expect("k") as usize;
    let pca = Pca::fit(&s, k);
    Steps {
        x,
        y,
        s,
        mean,
        scale,
        pca,
    }
}

/// The Lasso at the reference's alpha on all the components' scores.
fn lasso_on_scores(r: &Value, st: &Steps) -> (f64, p4cost_calibrate::lasso::Fit) {
    let z = st.pca.transform(&st.s, st.pca.components.len());
    let alpha = r["lasso_scores_alpha"].as_f64().expect("alpha");
    (alpha, Gram::new(&z, &st.y).solve(alpha, None, 1e-14))
}

#[test]
fn polynomial_features_and_standardiser_agree() {
    let r = reference();
    let st = steps(&r);
    for (row, want) in st.x.iter().zip(matrix(&r["poly"])) {
        close(&poly2(row), &want, "poly");
    }
    close(&st.mean, &vector(&r["scaler_mean"]), "scaler mean");
    close(&st.scale, &vector(&r["scaler_scale"]), "scaler scale");
}

#[test]
fn pca_agrees() {
    let r = reference();
    let st = steps(&r);
    let want = matrix(&r["pca_components"]);
    assert_eq!(st.pca.components.len(), want.len());
    for (i, (got, want)) in st.pca.components.iter().zip(&want).enumerate() {
        close(got, want, &format!("component {i}"));
    }
    close(&st.pca.mean, &vector(&r["pca_mean"]), "pca mean");
    close(
        &st.pca.explained_variance,
        &vector(&r["pca_explained_variance"]),
        "explained variance",
    );
    let z = st.pca.transform(&st.s, want.len());
    for (i, want) in matrix(&r["scores"]).iter().enumerate() {
        let got: Vec<f64> = z.row(i).iter().copied().collect();
        close(&got, want, &format!("scores row {i}"));
    }
}

#[test]
fn lasso_agrees_on_orthogonal_and_correlated_designs() {
    let r = reference();
    let st = steps(&r);
    let (_, f) = lasso_on_scores(&r, &st);
    close(&f.coef, &vector(&r["lasso_scores_coef"]), "lasso on scores");
    close(
        &[f.intercept],
        &[r["lasso_scores_intercept"].as_f64().expect("b")],
        "lasso on scores intercept",
    );
    // The standardised features are strongly correlated (x and x^2): the
    // coordinate descent must converge to the same minimum, zeros included.
    let alpha = r["lasso_features_alpha"].as_f64().expect("alpha");
    let f = Gram::new(&st.s, &st.y).solve(alpha, None, 1e-14);
    let want = vector(&r["lasso_features_coef"]);
    close(&f.coef, &want, "lasso on features");
    assert!(want.contains(&0.0), "the reference has a zeroed weight");
    close(
        &[f.intercept],
        &[r["lasso_features_intercept"].as_f64().expect("b")],
        "lasso on features intercept",
    );
}

#[test]
fn the_model_file_pipeline_predicts_as_scikit_learn() {
    let r = reference();
    let st = steps(&r);
    let (alpha, f) = lasso_on_scores(&r, &st);
    let part = PlpPart {
        inputs: vec!["packet_size".into(), "states".into(), "header_bytes".into()],
        mean: st.mean.clone(),
        scale: st.scale.clone(),
        pca_mean: st.pca.mean.clone(),
        components: st.pca.components.clone(),
        coef: f.coef,
        intercept: f.intercept,
        alpha,
        cv_rmse_ns: 0.0,
    };
    part.check(&p4cost_model::plp::PARSER_INPUTS)
        .expect("valid part");
    let got: Vec<f64> = st.x.iter().map(|row| part.eval(row)).collect();
    close(
        &got,
        &vector(&r["pipeline_predictions"]),
        "pipeline predictions",
    );
}
