//! p4cost-tofino
