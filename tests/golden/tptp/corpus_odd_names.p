% FOL Refinery problem: 0 axioms, with goal
fof(goal, conjecture, ((p_Planet_1(c_pSOJ318_u2e_5_u2d_22) & p_SoldAt_2(c_avocado, c_nica_u27_sMarket)) => p_Planet_1(c_pSOJ318_u2e_5_u2d_22))).
