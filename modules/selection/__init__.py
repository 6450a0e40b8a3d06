"""The selection stage (`stage`): the candidate paths run concurrently (`candidates`), the result vote (`vote`), and the
runner-up clusters with how their SQL differs (`alternatives`, `sql_difference`)."""
