//! pp_value: shortest round-trip decimals per format (issue 3).
