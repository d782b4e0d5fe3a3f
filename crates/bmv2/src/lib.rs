//! p4cost-bmv2
