% FOL Refinery problem: 3 axioms, no goal
fof(p1, axiom, (![X1]: (p_Bird_1(X1) => p_Flies_1(X1)))).
fof(p2, axiom, p_Bird_1(c_tweety)).
fof(p3, axiom, ~p_Flies_1(c_tweety)).
