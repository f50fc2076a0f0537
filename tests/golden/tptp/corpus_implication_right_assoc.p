% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, (p_P_1(c_a) => (p_Q_1(c_a) => p_P_1(c_a)))).
