//! p4cost-model
