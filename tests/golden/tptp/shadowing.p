% FOL Refinery problem: 2 axioms, no goal
fof(p1, axiom, (![X1]: (p_P_1(X1) => (?[X2]: ~p_P_1(X2))))).
fof(p2, axiom, p_P_1(c_a)).
