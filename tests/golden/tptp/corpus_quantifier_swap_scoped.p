% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, ((?[X1]: (![X2]: p_L_2(X1, X2))) => (![X3]: (?[X4]: p_L_2(X4, X3))))).
