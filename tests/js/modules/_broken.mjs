export let = ;
