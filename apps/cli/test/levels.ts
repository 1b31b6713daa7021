/**
 * Test fixture: two 10x10 Boxoban-format levels; level 1 is one push from solved (hand-checked: the box at (3,4)
 * moves right onto the goal).
 */
export const LEVELS = `; 0
##########
#        #
#  $  .  #
#   @    #
#        #
#        #
#        #
#        #
#        #
##########
; 1
##########
#        #
#        #
#   @$.  #
#        #
#        #
#        #
#        #
#        #
##########
`
