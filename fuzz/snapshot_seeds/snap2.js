const x = await tools.a('small');
return x;
