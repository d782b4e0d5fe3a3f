//! p4cost-front
