% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, (((c_a = c_b) & p_P_1(c_a)) => p_P_1(c_b))).
