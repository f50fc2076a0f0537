"""Where a formula disagrees with its sentence: one check per module, each scoring its findings.

Each check compares the sentence's cues (`reading.cues.Sentence`) with the formula's counts
(`shape.Shape`) and reports `Finding`s of its kinds (`REPORTS`) with a score in [0, 1]: how sure
it is that the formula does not say what the sentence says. Scores were set on FOLIO v2 *train*
(see `benchmarks/bench_alignment.py`): a kind that often fires on annotators' correct formulas
scores low, so it informs a reader without blaming the formula. `registry.CHECKS` lists the
checks in the order they run; `registry.check_formula` runs them all.
"""
