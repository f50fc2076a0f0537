% FOL Refinery problem: 5 axioms, with goal
fof(p1, axiom, p_Likes_1(c_f)).
fof(p2, axiom, p_Likes_2(c_ann, c_bob)).
fof(p3, axiom, (![X1]: (![X2]: (p_Likes_2(X1, X2) => p_Likes_2(X2, X1))))).
fof(p4, axiom, (f_f_1(c_f) = c_f)).
fof(p5, axiom, p_f).
fof(goal, conjecture, (p_Likes_2(c_bob, c_ann) & p_f & p_Likes_1(f_f_1(c_f)))).
