% FOL Refinery problem: 3 axioms, with goal
fof(p1, axiom, (p_A <~> p_B)).
fof(p2, axiom, p_A).
fof(p3, axiom, (p_C <=> ~p_B)).
fof(goal, conjecture, (p_C & ~p_B)).
