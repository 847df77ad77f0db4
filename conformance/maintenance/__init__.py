"""Maintaining the corpus: regenerate, check, captures, fuzzing, promotion, discrepancies,
coverage."""
