% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, (![X1]: (((p_P_1(X1) => p_P_1(f_f_1(X1))) & p_P_1(c_a)) => p_P_1(f_f_1(f_f_1(c_a)))))).
