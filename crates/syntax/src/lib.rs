//! p4cost-syntax
