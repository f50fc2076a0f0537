"""The one reader of natural-language sentences, for the alignment and the repair rules alike.

- `words`: accents (`plain`), a sentence's tokens and runs, a name's camel-case words, lemmas,
  function and content words;
- `cues`: what the wording asks of a formula: negation, quantifier and connective cues
  (`read_sentence`, `quantifier_cue`, `BOTH_OR_NEITHER`);
- `spelling`: what the words of some sentences say about how a name is spelled (`Words`).

Nothing here parses a formula: the formula side is the alignment's (`alignment.shape`) and the
rules' (`repairs.located`).
"""
