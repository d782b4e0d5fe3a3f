//! p4cost-analysis
