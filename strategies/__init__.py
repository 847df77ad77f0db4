"""Public Hypothesis strategies for Pi's messages, session entries and whole session trees."""
