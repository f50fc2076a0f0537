% FOL Refinery problem: 4 axioms, with goal
fof(p1, axiom, p_Is_u2d_A_2(c_gpt_u2d_3, c_caf_ue9_)).
fof(p2, axiom, (![X1]: (p_Is_u2d_A_2(X1, c_caf_ue9_) => p__udc_ber_u2e_Model_1(X1)))).
fof(p3, axiom, (c_o_u27_neil = c_st_u2e__u20_paul)).
fof(p4, axiom, p__u65e5__u672c__1(c_snake__case)).
fof(goal, conjecture, (p__udc_ber_u2e_Model_1(c_gpt_u2d_3) & p__u65e5__u672c__1(c_snake____case))).
