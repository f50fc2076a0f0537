% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, (((![X1]: (p_P_1(X1) => p_Q_1(X1))) & p_P_1(c_a)) => p_Q_1(c_a))).
