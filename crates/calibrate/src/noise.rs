//! Seeded normal noise (xorshift64 and Box-Muller) for synthesising
//! measurements from a known function: the fitters' tests, the round-trip
//! tests and the benches draw from it, so every run sees the same data.

/// A seeded source of normal noise.
#[derive(Debug, Clone)]
pub struct Noise(u64);

impl Noise {
    /// A source from `seed`, mixed by splitmix64 first so that small or
    /// nearby seeds give unrelated streams (and the state is never zero).
    pub fn new(seed: u64) -> Noise {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Noise(if z == 0 { 1 } else { z })
    }

    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Normal with mean 0 and standard deviation `sd`.
    pub fn normal(&mut self, sd: f64) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        sd * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}
