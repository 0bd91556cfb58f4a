"""What the pages show, shaped from plain data: a study's and a case's views, the results
tabs, the new-study form's rows and the model parameters' labels."""
