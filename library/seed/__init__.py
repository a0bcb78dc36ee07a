from library.seed.pool import Cast, Company, Person, Product, SeedPool, seed_pool

__all__ = ["Cast", "Company", "Person", "Product", "SeedPool", "seed_pool"]
