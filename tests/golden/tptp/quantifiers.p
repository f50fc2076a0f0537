% FOL Refinery problem: 4 axioms, with goal
fof(p1, axiom, (![X1]: (p_Man_1(X1) => p_Mortal_1(X1)))).
fof(p2, axiom, p_Man_1(c_socrates)).
fof(p3, axiom, (![X1]: (![X2]: (p_Loves_2(X1, X2) => p_Loves_2(X2, X1))))).
fof(p4, axiom, p_Loves_2(c_socrates, c_plato)).
fof(goal, conjecture, (?[X1]: (p_Mortal_1(X1) & (?[X2]: p_Loves_2(X2, X1))))).
