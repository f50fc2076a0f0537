% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, ((![X1]: (p_P_1(X1) => (?[X2]: p_Q_1(X2)))) => (p_P_1(c_a) => (?[X3]: p_Q_1(X3))))).
