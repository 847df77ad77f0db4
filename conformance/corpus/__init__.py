"""The corpus: cases, their goldens, the stage vocabulary and how goldens are normalized."""
