% FOL Refinery problem: 3 axioms, with goal
fof(p1, axiom, (f_father_1(c_bart) = c_homer)).
fof(p2, axiom, (![X1]: p_Parent_2(f_father_1(X1), X1))).
fof(p3, axiom, ~(c_homer = c_marge)).
fof(goal, conjecture, (p_Parent_2(c_homer, c_bart) & ~(c_marge = c_homer))).
