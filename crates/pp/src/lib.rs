//! p4cost-pp
