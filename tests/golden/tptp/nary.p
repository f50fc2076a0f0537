% FOL Refinery problem: 4 axioms, with goal
fof(p1, axiom, (p_A | p_B | p_C | p_D)).
fof(p2, axiom, ~p_A).
fof(p3, axiom, (~p_B & ~p_C)).
fof(p4, axiom, (p_E & p_F & p_G)).
fof(goal, conjecture, (p_D & p_E & p_G)).
