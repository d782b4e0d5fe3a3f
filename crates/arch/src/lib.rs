//! p4cost-arch
