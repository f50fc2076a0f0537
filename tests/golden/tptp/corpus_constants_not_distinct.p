% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, ~(c_a = c_b)).
